// The simulated host's RDMA netlink (nldev), rendered as the bytes the kernel sends for the
// requests the process collector makes: the device dump (RDMA_NLDEV_CMD_GET) and the
// per-device object dumps (RDMA_NLDEV_CMD_RES_{QP,CQ,MR,PD}_GET) naming each object's owner.
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
#include "exporters/simulator/host_model.h"

namespace rdmatop::sim {

/// One message per RDMA device (index = its position in host.ports), then NLMSG_DONE.
std::vector<std::uint8_t> render_nldev_devices_reply(const HostModel& host, std::uint32_t seq);

/// The objects of `kind` on device `dev_index` (< host.ports.size()), at most 32 per message,
/// then NLMSG_DONE.
std::vector<std::uint8_t> render_nldev_res_reply(const HostModel& host, NldevResKind kind,
                                                 std::uint32_t dev_index, std::uint32_t seq);

/// The replies to every request the process collector sends on this host, keyed by request
/// bytes as make_replay_rdma_netlink_source wants them.
NetlinkRecording simulated_nldev_recording(const HostModel& host);

}  // namespace rdmatop::sim
