// class/net/<if> -> NetdevSample, for the netdevs behind RDMA ports only. Formats:
// net/core/net-sysfs.c. One SourceStatus per netdev, source "netdev".
#include <algorithm>
#include <cerrno>
#include <limits>
#include <optional>
#include <set>
#include <string>

#include "collector/collect.h"
#include "collector/parse/sysfs_parse.h"
#include "collector/sysfs_object_reader.h"

namespace rdmatop {
namespace {

using Presence = SysfsObjectReader::Presence;
using DirOutcome = SysfsObjectReader::DirOutcome;

constexpr std::string_view kNetdevSource = "netdev";

std::set<std::string> port_netdevs(const Snapshot& snap) {
  std::set<std::string> names;
  for (const auto& device : snap.devices) {
    for (const auto& port : device.ports) {
      if (!port.netdev.empty()) names.insert(port.netdev);
    }
  }
  return names;
}

void read_speed(SysfsObjectReader& reader, NetdevSample& out) {
  // speed_show returns -EINVAL while the link is down or the driver cannot tell, and prints
  // -1 (SPEED_UNKNOWN) in other cases; both mean "no speed", the second is kept as printed.
  auto text = reader.read_raw("speed");
  if (!text) {
    if (text.error().code != EINVAL) reader.record("speed", text.error(), Presence::optional);
    return;
  }
  const auto speed = parse_signed_value(*text);
  if (speed) {
    out.speed_mbps = *speed;
  } else {
    reader.record_parse_error("speed", speed.error());
  }
}

/// Reads one netdev; nullopt (with the status explaining why) when there is nothing to report.
std::optional<NetdevSample> read_netdev(const FileSource& fs, const std::string& name,
                                        SourceStatus& status) {
  StatusTimer timer(std::string(kNetdevSource), name);
  if (!is_valid_netdev_name(name)) {
    status = timer.finish(SourceState::error, "not a netdev name: " + escape_for_message(name));
    return std::nullopt;
  }
  const std::string base = "class/net/" + name;
  if (const auto listing = fs.list_static(base); !listing) {
    status = timer.finish(SourceState::error, "netdev not found (" + listing.error().message + ")");
    return std::nullopt;
  }

  ProblemLog log;
  SysfsObjectReader reader(fs, base, base, log);
  NetdevSample out;
  out.name = name;
  if (const auto mtu = reader.read_u64("mtu", Presence::required)) {
    if (*mtu <= std::numeric_limits<std::uint32_t>::max()) {
      out.mtu = static_cast<std::uint32_t>(*mtu);
    } else {
      reader.record_parse_error("mtu", Error{0, "out of range: " + std::to_string(*mtu)});
    }
  }
  if (auto operstate = reader.read_text("operstate", Presence::required)) {
    out.operstate = std::move(*operstate);
  }
  // carrier_changes appeared in Linux 3.15; older kernels simply lack it.
  out.carrier_changes = reader.read_u64("carrier_changes", Presence::optional);
  read_speed(reader, out);
  if (auto address =
          reader.read_text("address", Presence::required, SysfsObjectReader::Refresh::on_change)) {
    out.address = std::move(*address);
  }
  out.static_age = reader.static_age();
  if (reader.read_counters("statistics", out.statistics) == DirOutcome::absent) {
    log.note("no statistics/ directory");
  }
  if (reader.vanished()) {
    status = timer.finish(SourceState::error, "netdev vanished during read");
    return std::nullopt;
  }
  status = timer.finish(log.state(), log.message());
  return out;
}

}  // namespace

void collect_netdev_sysfs(const CollectContext& ctx, Snapshot& out) {
  for (const auto& name : port_netdevs(out)) {
    SourceStatus status;
    auto sample = read_netdev(ctx.sysfs, name, status);
    out.sources.push_back(std::move(status));
    if (sample) out.netdevs.push_back(std::move(*sample));
  }
  std::stable_sort(out.netdevs.begin(), out.netdevs.end(),
                   [](const NetdevSample& a, const NetdevSample& b) { return a.name < b.name; });
}

}  // namespace rdmatop
