// collect_ethtool: `ethtool -S`, `-i` and `-a` data for the netdevs of the RDMA ports.
//
// Status policy (one SourceStatus "ethtool"/<ifname> per netdev):
//  * statistics read                      → ok
//  * EOPNOTSUPP for statistics            → no_data: the driver simply has none
//  * any other statistics error           → error (ENODEV: the netdev vanished)
//  * driver info / pause fail with EOPNOTSUPP → that field stays absent, nothing to report
//  * the pfc-prevention-tout tunable fails with EOPNOTSUPP or EINVAL → absent, nothing to report
//    (drivers whose get_tunable knows other tunables answer EINVAL for this one)
//  * driver info / pause fail otherwise   → error, the reason appended to the message; whatever
//    was read (statistics included) is kept.

#include <algorithm>
#include <cerrno>
#include <string>
#include <vector>

#include "collector/collect.h"

namespace rdmatop {
namespace {

constexpr const char* kEthtoolSource = "ethtool";

NetdevSample& find_or_add(std::vector<NetdevSample>& netdevs, const std::string& name) {
  auto it =
      std::lower_bound(netdevs.begin(), netdevs.end(), name,
                       [](const NetdevSample& n, const std::string& v) { return n.name < v; });
  if (it != netdevs.end() && it->name == name) return *it;
  NetdevSample sample;
  sample.name = name;
  return *netdevs.insert(it, std::move(sample));
}

/// The names to read: every netdev already sampled plus every port netdev not yet sampled.
std::vector<std::string> netdev_names(const Snapshot& snap) {
  std::vector<std::string> names;
  for (const auto& n : snap.netdevs) names.push_back(n.name);
  for (const auto& dev : snap.devices) {
    for (const auto& port : dev.ports) {
      if (!port.netdev.empty()) names.push_back(port.netdev);
    }
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

SourceStatus collect_one(EthtoolSource& source, NetdevSample& netdev) {
  const StatusTimer timer(kEthtoolSource, netdev.name);
  SourceState state = SourceState::ok;
  std::string message;

  auto stats = source.stats(netdev.name);
  if (stats.ok()) {
    netdev.ethtool = std::move(stats).value();
  } else if (stats.error().code == EOPNOTSUPP) {
    // "Not supported" is no data, not a failure; the source says why (a driver without
    // statistics, or no dump file for this netdev offline).
    state = SourceState::no_data;
    message = "no ethtool statistics: " + stats.error().message;
  } else {
    // A vanished netdev will not answer the other calls either.
    if (stats.error().code == ENODEV)
      return timer.finish(SourceState::error, stats.error().message);
    state = SourceState::error;
    message = stats.error().message;
  }

  auto note_failure = [&](const Error& e, const char* what) {
    if (e.code == EOPNOTSUPP) return;  // absent: the driver does not implement it
    state = SourceState::error;
    append_note(message, std::string(what) + ": " + e.message);
  };
  if (auto driver = source.driver_info(netdev.name); driver.ok()) {
    netdev.driver = std::move(driver).value();
  } else {
    note_failure(driver.error(), "driver info");
  }
  if (auto pause = source.pause(netdev.name); pause.ok()) {
    netdev.pause = std::move(pause).value();
  } else {
    note_failure(pause.error(), "pause");
  }
  if (auto tout = source.pfc_prevention_tout(netdev.name); tout.ok()) {
    netdev.pfc_prevention_tout_ms = *tout;
  } else if (tout.error().code != EINVAL) {
    note_failure(tout.error(), "pfc-prevention-tout");
  }
  return timer.finish(state, std::move(message));
}

}  // namespace

void collect_ethtool(const CollectContext& ctx, Snapshot& out) {
  // Keep netdevs sorted by name (the model's invariant) even if a collector before us did not.
  std::sort(out.netdevs.begin(), out.netdevs.end(),
            [](const NetdevSample& a, const NetdevSample& b) { return a.name < b.name; });
  for (const std::string& name : netdev_names(out)) {
    NetdevSample& netdev = find_or_add(out.netdevs, name);
    out.sources.push_back(collect_one(ctx.ethtool, netdev));
  }
}

}  // namespace rdmatop
