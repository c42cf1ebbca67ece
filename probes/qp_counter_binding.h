// Per-QP retransmit attribution, the binding half: after an RC probe connects, its QP is bound
// to a counter of its own through RDMA netlink, as `rdma statistic qp bind link DEV/PORT lqpn N`
// does (RDMA_NLDEV_CMD_STAT_SET; kernel core/nldev.c nldev_stat_set_mode_doit ->
// core/counters.c rdma_counter_bind_qpn_alloc). The collectors then read that counter like any
// bound counter (`rdma statistic qp show`, PortSample::bound_counters) and the runner credits
// the stream with it (scope "qp"). Where the kernel refuses, the stream keeps the port-level
// attribution and the refusal, in words, as its retransmit_note.
//
// No unbind: the kernel releases the counter with the QP (core/verbs.c ib_destroy_qp_user ->
// rdma_counter_unbind_qp(qp, true) -> counter_release), and a port whose last manual counter
// went returns to mode "none" (rdma_counter_free).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "collector/model/result.h"
#include "collector/source/rdma_netlink_source.h"

namespace rdmatop::probes {

/// The outcome of one bind.
struct QpCounterBinding {
  std::optional<std::uint32_t> counter_id;  ///< the kernel's new counter; none: not bound
  std::string note;                         ///< why not, in words; empty when bound

  bool operator==(const QpCounterBinding&) const = default;
};

/// Binds QP `qpn` of `device` port `port` to a counter of its own. Called once per RDMA
/// connection on a probe worker, never between pings; must not throw.
using QpCounterBinder = std::function<QpCounterBinding(const std::string& device,
                                                       std::uint32_t port, std::uint32_t qpn)>;

/// The bind through `netlink`: the device's index from the device list, then STAT_SET. A
/// refusal in words ("rxe0/1: driver cannot bind QP counters (ENOMEM)"); in auto mode the
/// kernel refuses with EINVAL because it binds QPs itself (rdma_counter_bind_qpn_alloc), which
/// is said too (the port's mode is read to tell).
QpCounterBinding bind_qp_counter(RdmaNetlinkSource& netlink, const std::string& device,
                                 std::uint32_t port, std::uint32_t qpn);

/// The live binder: a NETLINK_RDMA socket of its own per bind (binds happen once per
/// connection, on any worker thread).
QpCounterBinder netlink_qp_counter_binder();

}  // namespace rdmatop::probes
