// Snapshot -> canonical series, driven by the one declarative counter table
// (counter_table.cpp). Raw driver counters stay in the Snapshot; nothing is dropped.
#pragma once

#include <vector>

#include "collector/model/snapshot.h"
#include "collector/normalize/series.h"

namespace rdmatop {

/// All canonical series of a snapshot, sorted by series_key. Counters a driver lacks produce
/// no series (absent, never 0).
std::vector<Series> normalize(const Snapshot& snapshot);

/// A snapshot together with its canonical series: what the outputs and the rules consume,
/// normalized once per tick.
struct Observation {
  Snapshot snapshot;
  std::vector<Series> series;
};

Observation make_observation(Snapshot snapshot);

}  // namespace rdmatop
