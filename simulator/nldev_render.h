// The simulated host's RDMA netlink (nldev), rendered as the bytes the kernel sends for the
// requests the process and QP counter collectors make: the device dump (RDMA_NLDEV_CMD_GET),
// the per-device object dumps (RDMA_NLDEV_CMD_RES_{QP,CQ,MR,PD}_GET) naming each object's owner,
// and the QP counter mode and bound counters (RDMA_NLDEV_CMD_STAT_GET with STAT_RES = RES_QP).
// Laid out as drivers/infiniband/core/nldev.c fills them and as the Soft-RoCE VM's kernel was
// seen to send them (tests/fixtures/netlink/nldev_res_*_captured.bin): nests without
// NLA_F_NESTED, u64 attributes without PAD (x86-64 has efficient unaligned access). Every
// device holds ib_core's objects (the GSI QP 1, the MAD agent's CQ and PD) besides those of the
// scenario's processes. Pure: model in, bytes out.
#pragma once

#include <cstdint>
#include <vector>

#include "collector/parse/nldev_parse.h"
#include "collector/source/rdma_netlink_source.h"
#include "simulator/host_model.h"

namespace rdmatop::sim {

/// One message per RDMA device (index = its position in host.ports), then NLMSG_DONE.
std::vector<std::uint8_t> render_nldev_devices_reply(const HostModel& host, std::uint32_t seq);

/// The objects of `kind` on device `dev_index` (< host.ports.size()), at most 32 per message,
/// then NLMSG_DONE.
std::vector<std::uint8_t> render_nldev_res_reply(const HostModel& host, NldevResKind kind,
                                                 std::uint32_t dev_index, std::uint32_t seq);

/// `rdma statistic qp mode` of device `dev_index`'s port (nldev.c stat_get_doit_qp): auto mode
/// by PID when a process there has a counter_share, else none; then the ACK.
std::vector<std::uint8_t> render_nldev_qp_counter_mode_reply(const HostModel& host,
                                                             std::uint32_t dev_index,
                                                             std::uint32_t seq);

/// `rdma statistic qp show` of device `dev_index`'s port (fill_res_counter_entry): in auto mode
/// by PID one counter per user process on the device, with its QPs (the numbers of the QP
/// dump), its PID, and its share of the port's transport error counters in mlx5's Q-counter
/// names; then NLMSG_DONE (alone when nothing is bound).
std::vector<std::uint8_t> render_nldev_bound_counters_reply(const HostModel& host,
                                                            std::uint32_t dev_index,
                                                            std::uint32_t seq);

/// The replies to every request the process and QP counter collectors send on this host, as
/// the host is now, keyed by request bytes as make_replay_rdma_netlink_source wants them.
NetlinkRecording simulated_nldev_recording(const HostModel& host);

}  // namespace rdmatop::sim
