// The simulated host's IEEE DCB (rtnetlink dcbnl), rendered as the bytes the kernel sends for
// rdmatop's DCB_CMD_IEEE_GET request: what devlink_render.h is for devlink. The simulator's DCB
// source (sim_sources.h) hands them to the collector's own parser (collector/parse/dcbnl_parse.h).
// Pure functions: model in, bytes out.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "simulator/host_model.h"

namespace rdmatop::sim {

/// The reply to DCB_CMD_IEEE_GET for `ifname` (net/dcb/dcbnl.c dcbnl_ieee_fill: DCB_ATTR_IFNAME,
/// then DCB_ATTR_IEEE with ETS, PFC and the APP table, then DCB_ATTR_DCBX), then the ACK; none
/// when the netdev has no dcbnl_ops (virtio_net under rxe) or is not simulated. mlx5 trusts
/// DSCP with its default map (DSCP d -> priority d / 8, so the RoCE class DSCP 26 -> 3) and
/// lists all 64 DSCP APP entries, as en_dcbnl.c mlx5e_dcbnl_dscp_app does in trust-DSCP mode;
/// bnxt_en lists its RoCE APP entries (ethertype 0x8915 and UDP 4791 -> priority 3). PFC is on
/// for priority 3 unless the port's `pfc` is off.
std::optional<std::vector<std::uint8_t>> render_dcb_ieee_reply(const HostModel& host,
                                                               const std::string& ifname,
                                                               std::uint32_t seq);

}  // namespace rdmatop::sim
