// devlink (generic netlink family "devlink"): building the two dump requests rdmatop sends
// (DEVLINK_CMD_INFO_GET, what `devlink dev info` sends; DEVLINK_CMD_HEALTH_REPORTER_GET, what
// `devlink health show` sends) and parsing the kernel's replies. Pure functions over bytes; the
// socket lives in collector/source/devlink_source.cpp. Facts: include/uapi/linux/devlink.h,
// net/devlink/{dev.c,health.c} (torvalds/linux), iproute2 devlink/devlink.c;
// docs/domain.md#devlink.
//
// A reply is every byte received for one request, datagrams concatenated, ending in NLMSG_DONE
// (or an ACK). Unknown attributes are ignored, PAD skipped, the types of known ones validated;
// anything truncated or malformed is EPROTO, kernel errors keep their errno.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "collector/model/host_config.h"
#include "collector/model/result.h"

namespace rdmatop {

/// One health reporter with the devlink instance (and port, for per-port reporters such as
/// mlx5's tx/rx) it belongs to.
struct DevlinkReporterEntry {
  std::string bus_name;
  std::string dev_name;
  std::optional<std::uint32_t> port_index;
  DevlinkHealthReporter reporter;

  bool operator==(const DevlinkReporterEntry&) const = default;
};

/// DEVLINK_CMD_INFO_GET as a dump over every instance.
std::vector<std::uint8_t> build_devlink_info_request(std::uint16_t family_id, std::uint32_t seq);
/// DEVLINK_CMD_HEALTH_REPORTER_GET as a dump over every instance and port.
std::vector<std::uint8_t> build_devlink_health_request(std::uint16_t family_id, std::uint32_t seq);

/// Whether `reply` holds the whole answer to `seq` (NLMSG_DONE, an ACK or an error); malformed
/// bytes also end it, for the parser to reject.
bool devlink_reply_complete(std::span<const std::uint8_t> reply, std::uint32_t seq);

/// Instances with driver, serials and versions; `reporters` stays empty. An empty vector is a
/// kernel with the family but no instance.
Result<std::vector<DevlinkInfo>> parse_devlink_info_reply(std::span<const std::uint8_t> reply,
                                                          std::uint16_t family_id,
                                                          std::uint32_t seq);
Result<std::vector<DevlinkReporterEntry>> parse_devlink_health_reply(
    std::span<const std::uint8_t> reply, std::uint16_t family_id, std::uint32_t seq);

}  // namespace rdmatop
