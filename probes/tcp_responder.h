// The TCP half of `rdmatop responder`: accepts probe connections, runs the handshake through the
// shared admission rules, and echoes frames. One thread, non-blocking sockets and poll(2); every
// connection has a deadline (handshake or idle), so a silent or slow peer only costs its slot
// until then, and the slot count itself is capped.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "collector/model/result.h"
#include "probes/admission.h"

namespace rdmatop::probes {

class TcpResponder {
 public:
  /// Binds and listens on address:port ("" or "0.0.0.0": every IPv4 address; "::" IPv6 too).
  /// Port 0 picks a free port (tests); port() tells which.
  static Result<std::unique_ptr<TcpResponder>> listen(const std::string& address,
                                                      std::uint16_t port, ResponderLimits limits,
                                                      ResponderLog log);
  ~TcpResponder();
  TcpResponder(const TcpResponder&) = delete;
  TcpResponder& operator=(const TcpResponder&) = delete;

  std::uint16_t port() const;
  /// Handles whatever is ready, waiting at most `max_wait`.
  void poll_once(std::chrono::milliseconds max_wait);
  /// poll_once until `stop` becomes true (checked at least every 200 ms); closes everything.
  void run(const std::atomic<bool>& stop);
  /// Thread-safe.
  ResponderStats stats() const;

 private:
  struct Impl;
  explicit TcpResponder(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace rdmatop::probes
