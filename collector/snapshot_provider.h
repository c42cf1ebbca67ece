// Where snapshots come from, as one signature every input shares: the live collectors (here),
// the simulator's tree (simulator/) and a recording (recording/). It sits beside the collectors,
// not in the loop (pipeline/monitor.h), so an input never includes the loop that consumes it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "collector/model/snapshot.h"

namespace rdmatop {

struct CollectContext;  // collector/collect.h

/// One snapshot per call, `seq` counting from 0. Returns nullopt when there are no more (end of
/// a recording).
using SnapshotProvider = std::function<std::optional<Snapshot>(std::uint64_t seq)>;

/// A provider that runs the collectors on `ctx` (which must outlive it).
SnapshotProvider live_provider(const CollectContext& ctx);

}  // namespace rdmatop
