// The TCP half of `rdmatop responder`: accepts probe connections, runs the handshake through the
// shared admission rules, and echoes frames. One thread, non-blocking sockets and epoll(7); every
// connection has a deadline (handshake or idle), so a silent or slow peer only costs its slot
// until then, and the slot count itself is capped.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "collector/model/result.h"
#include "probes/admission.h"
#include "probes/responder.h"

namespace rdmatop::probes {

class TcpResponder final : public Responder {
 public:
  /// Binds and listens on address:port ("" or "0.0.0.0": every IPv4 address; "::" IPv6 too).
  /// Port 0 picks a free port (tests); port() tells which.
  static Result<std::unique_ptr<TcpResponder>> listen(const std::string& address,
                                                      std::uint16_t port, ResponderLimits limits,
                                                      ResponderLog log);
  ~TcpResponder() override;

  std::uint16_t port() const;

 private:
  struct Impl;
  explicit TcpResponder(std::unique_ptr<Impl> impl);
};

}  // namespace rdmatop::probes
