// The simulated host's devlink, rendered as the bytes the kernel sends for rdmatop's two dumps
// (DEVLINK_CMD_INFO_GET and DEVLINK_CMD_HEALTH_REPORTER_GET): what tree_render.cpp is for sysfs,
// this is for generic netlink. The simulator's devlink source (sim_sources.h) hands these
// bytes to the collector's own parsers, so devlink data takes the same path as on a real host.
// Pure functions: model in, bytes out.
#pragma once

#include <cstdint>
#include <vector>

#include "simulator/host_model.h"

namespace rdmatop::sim {

/// The id the simulated kernel gives the "devlink" generic netlink family. Any id works: the
/// live source resolves it with CTRL_CMD_GETFAMILY, the simulated one uses this constant.
inline constexpr std::uint16_t kSimulatedDevlinkFamily = 0x14;

/// One message per devlink instance (every PCI device: mlx5 and bnxt_en; rxe has none), then
/// NLMSG_DONE. Layout of net/devlink/dev.c devlink_nl_info_fill.
std::vector<std::uint8_t> render_devlink_info_reply(const HostModel& host, std::uint16_t family,
                                                    std::uint32_t seq);

/// One message per health reporter (mlx5: fw, fw_fatal; bnxt_en: fw), then NLMSG_DONE. Layout of
/// net/devlink/health.c devlink_nl_health_reporter_fill.
std::vector<std::uint8_t> render_devlink_health_reply(const HostModel& host, std::uint16_t family,
                                                      std::uint32_t seq);

}  // namespace rdmatop::sim
