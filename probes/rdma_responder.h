// The RDMA half of `rdmatop responder`: an rdma_cm listener (RDMA_PS_TCP, RoCE v2 by IP) that
// judges each connect request's private data with the shared admission rules, gives every
// accepted prober its own RC QP with just the buffers its probe kind needs, and echoes SENDs and
// WRITE_WITH_IMMs. One thread; rdma_cm events and per-connection completion channels are polled
// together (or, busy-polling, the CQs are spun over), and every connection is torn down on
// disconnect, error completions, protocol violations or its idle deadline.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "collector/model/result.h"
#include "probes/admission.h"
#include "probes/responder.h"

namespace rdmatop::probes {

class RdmaResponder final : public Responder {
 public:
  /// Binds the rdma_cm listener to address:port ("0.0.0.0": every RDMA device's IPv4 address).
  /// Fails with ENODEV-like errors on hosts without RDMA (no /dev/infiniband/rdma_cm).
  /// `busy_poll`: spin over the connections' CQs instead of sleeping on completion events (a
  /// core at 100%, no wake-up in the echo path: what a perftest server does without -e).
  static Result<std::unique_ptr<RdmaResponder>> listen(const std::string& address,
                                                       std::uint16_t port, ResponderLimits limits,
                                                       ResponderLog log, bool busy_poll = false);
  ~RdmaResponder() override;

 private:
  struct Impl;
  explicit RdmaResponder(std::unique_ptr<Impl> impl);
};

}  // namespace rdmatop::probes
