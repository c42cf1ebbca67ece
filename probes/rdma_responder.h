// The RDMA half of `rdmatop responder`: an rdma_cm listener (RDMA_PS_TCP, RoCE v2 by IP) that
// judges each connect request's private data with the shared admission rules, gives every
// accepted prober its own RC QP with just the buffers its probe kind needs, and echoes SENDs and
// WRITE_WITH_IMMs. One thread; rdma_cm events and per-connection completion channels are polled
// together, and every connection is torn down on disconnect, error completions, protocol
// violations or its idle deadline.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "collector/model/result.h"
#include "probes/admission.h"

namespace rdmatop::probes {

class RdmaResponder {
 public:
  /// Binds the rdma_cm listener to address:port ("0.0.0.0": every RDMA device's IPv4 address).
  /// Fails with ENODEV-like errors on hosts without RDMA (no /dev/infiniband/rdma_cm).
  static Result<std::unique_ptr<RdmaResponder>> listen(const std::string& address,
                                                       std::uint16_t port, ResponderLimits limits,
                                                       ResponderLog log);
  ~RdmaResponder();
  RdmaResponder(const RdmaResponder&) = delete;
  RdmaResponder& operator=(const RdmaResponder&) = delete;

  void poll_once(std::chrono::milliseconds max_wait);
  /// poll_once until `stop` becomes true (checked at least every 200 ms); closes everything.
  void run(const std::atomic<bool>& stop);
  /// Thread-safe.
  ResponderStats stats() const;

 private:
  struct Impl;
  explicit RdmaResponder(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace rdmatop::probes
