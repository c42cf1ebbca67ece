// Disappearances between ticks. A collector reads what is there; a device whose class link
// went, a port directory, a hw_counters/ directory or a single counter file that stopped
// existing simply reads as "not there", which looks like a driver that never had it: the series
// ends with no explanation and a fallback row of the counter table may silently take its place
// (counter_table.h). The tracker remembers everything earlier ticks read and gives each object
// that is missing now an error status (source "inventory", the object's target), renewed every
// tick until it comes back, so the exporter's rdmatop_source_up and the report say what went.
#pragma once

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "collector/model/snapshot.h"

namespace rdmatop {

inline constexpr const char* kInventorySource = "inventory";

class VanishedTracker {
 public:
  /// Records what `snapshot` holds and appends to snapshot.sources one error status per target
  /// with something read at an earlier tick and missing now.
  void observe(Snapshot& snapshot);

 private:
  /// target ("mlx5_0", "mlx5_0/1", "ens1f0np0") -> what was read there ("ports/1",
  /// "hw_counters/np_cnp_sent", "ethtool/rx_prio3_pause", ...).
  using Inventory = std::map<std::string, std::set<std::string>>;
  Inventory seen_;
};

/// Everything `snapshot` read, in the tracker's terms; "" is the host (its devices, netdevs).
std::map<std::string, std::set<std::string>> inventory_of(const Snapshot& snapshot);

}  // namespace rdmatop
