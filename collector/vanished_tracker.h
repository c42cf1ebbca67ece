// Disappearances between ticks. A collector reads what is there; a device whose class link
// went, a port directory, a hw_counters/ directory or a single counter file that stopped
// existing simply reads as "not there", which looks like a driver that never had it: the series
// ends with no explanation and a fallback row of the counter table may silently take its place
// (counter_table.h). The tracker remembers everything earlier ticks read and gives each object
// that is missing now an error status (source "inventory", the object's target), renewed every
// tick until it comes back, so the exporter's rdmatop_source_up and the report say what went.
//
// It runs on every tick of a live host, over every counter name read (thousands on a 16-port
// NIC), so it compares sorted name lists in step instead of building a set of joined names per
// tick: a name costs one comparison unless it is missing or new (issue 18 measured the set
// version at 24% of a whole exporter tick). A counter section whose names vector is the one
// that matched its remembered names exactly last time (counter maps share one vector per
// source listing or ethtool layout until the names change) is not compared at all.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "collector/model/snapshot.h"

namespace rdmatop {

inline constexpr const char* kInventorySource = "inventory";

class VanishedTracker {
 public:
  /// Records what `snapshot` holds and appends to snapshot.sources one error status per target
  /// with something read at an earlier tick and missing now.
  void observe(Snapshot& snapshot);

 private:
  /// What was ever read under one prefix of a target ("hw_counters/", "ports/", "ethtool/"):
  /// names sorted, each once.
  struct Section {
    std::string prefix;
    std::vector<std::string> names;
    /// The counter names vector that equalled `names` at the last comparison (nothing missing,
    /// nothing new); null otherwise. Held, so it cannot change while it is here (CounterMap
    /// copies names it shares before changing them) and its address cannot be reused.
    SharedCounterNames matched;
  };
  /// target ("" for the host, "mlx5_0", "mlx5_0/1", "ens1f0np0") -> its sections, sorted by
  /// prefix. No prefix is a prefix of another, so prefix-then-name order is the order of the
  /// joined names ("counters/x" < "hw_counters/y").
  std::map<std::string, std::vector<Section>, std::less<>> seen_;
};

}  // namespace rdmatop
