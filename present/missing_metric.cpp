#include "present/missing_metric.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "collector/normalize/counter_table.h"
#include "collector/normalize/driver_family.h"

namespace rdmatop {

namespace {

/// The driver families of the host's ports (of a device without ports, its own driver's), as the
/// normalizer chooses them for the rows read from the device.
std::set<DriverFamily> host_families(const Snapshot& snapshot) {
  std::set<DriverFamily> out;
  for (const DeviceSample& dev : snapshot.devices) {
    if (dev.ports.empty()) out.insert(driver_families(dev.driver, nullptr).rdma);
    for (const PortSample& port : dev.ports) {
      out.insert(driver_families(dev.driver, find_netdev(snapshot, port.netdev)).rdma);
    }
  }
  return out;
}

std::string join(const std::vector<std::string>& items, const char* sep = ", ") {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : sep) + item;
  return out;
}

/// Series the normalizer derives from snapshot fields or host configuration (no table row),
/// with what feeds them.
const std::map<std::string, std::string>& derived_sources() {
  static const std::map<std::string, std::string> sources = {
      {"rdma_port_state", "the port's state file was not read"},
      {"rdma_port_phys_state", "the port's phys_state file was not read"},
      {"rdma_port_rate_bytes_per_second", "the port's rate file was not read"},
      {"rdma_port_roce_v2_gids", "the GID table was not read (or the port is not RoCE)"},
      {"rdma_port_roce_v1_gids", "the GID table was not read (or the port is not RoCE)"},
      {"rdma_netdev_mtu_bytes", "the netdev's mtu was not read"},
      {"rdma_netdev_up", "the netdev's operstate was not read"},
      {"rdma_netdev_carrier_changes_total", "the netdev's carrier_changes was not read"},
      {"rdma_pfc_enabled",
       "PFC configuration was not read (DCB netlink, or mlx5's per-priority ethtool strings)"},
      {"rdma_saturated",
       "no saturating counter was read (the IB PMA PortCounters of ports/<n>/counters)"},
      {"rdma_pfc_storm_prevention_seconds",
       "the mlx5 pfc-prevention-tout tunable was not read (live ethtool only; other drivers have "
       "none)"},
  };
  return sources;
}

/// Families of series that come from one source, by name prefix, with what feeds them.
const char* source_of_prefix(const std::string& metric) {
  static const std::pair<const char*, const char*> prefixes[] = {
      {"rdma_devlink_",
       "devlink was not read: offline input, a device without a devlink instance, or a kernel "
       "without the devlink family"},
      {"rdma_firmware_",
       "no firmware version was read (devlink, or the device's fw_ver and board_id)"},
      {"rdma_process_",
       "no process holding RDMA objects was seen (RDMA netlink resource dumps and /proc are read "
       "on the live host only)"},
      {"rdma_dcb_",
       "DCB configuration (dcbnl) was not read: live host only, and not every driver "
       "implements it"},
  };
  for (const auto& [prefix, why] : prefixes) {
    if (metric.starts_with(prefix)) return why;
  }
  return nullptr;
}

}  // namespace

std::string explain_missing_metric(const std::string& metric, const Snapshot& snapshot) {
  if (metric.starts_with("rdma_probe_")) return "no active probes ran (rdmatop probe targets)";
  if (const auto it = derived_sources().find(metric); it != derived_sources().end()) {
    return it->second;
  }
  if (const char* why = source_of_prefix(metric)) return why;
  if (metric.starts_with("{")) return "none of these series exists on this host";
  std::set<DriverFamily> with_row;
  std::vector<std::string> raw_here;
  const std::set<DriverFamily> here = host_families(snapshot);
  for (const CounterRow& row : counter_rows()) {
    if (row.series != metric) continue;
    with_row.insert(row.driver);
    if (row.driver == DriverFamily::any || here.count(row.driver) != 0) {
      std::string raw = fmt::format("{} {}", to_string(row.source), row.raw);
      if (std::find(raw_here.begin(), raw_here.end(), raw) == raw_here.end()) {
        raw_here.push_back(std::move(raw));
      }
    }
  }
  if (with_row.empty()) return "not collected on this host";
  if (!raw_here.empty()) {
    return fmt::format(
        "not found in what was read (looked for {}): the driver version, the "
        "firmware or the capture lacks it",
        join(raw_here));
  }
  std::vector<std::string> others;
  for (const DriverFamily f : with_row) others.emplace_back(to_string(f));
  std::vector<std::string> mine;
  for (const DriverFamily f : here) {
    mine.emplace_back(f == DriverFamily::any ? "an unidentified driver" : to_string(f));
  }
  return fmt::format("{} has no such counter (drivers that have one: {})",
                     mine.empty() ? std::string("no RDMA driver") : join(mine, " and "),
                     join(others));
}

}  // namespace rdmatop
