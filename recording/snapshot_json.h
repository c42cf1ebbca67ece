// Snapshot <-> JSON for recordings (docs/recording.md). Pure: no I/O.
//
// A steady_clock time point means nothing in another process, so a recorded snapshot carries
// its wall time (unix nanoseconds) and its monotonic offset from the recording start. Replay
// rebuilds `taken` as "recording start + offset" on an arbitrary epoch: differences between
// snapshots, and so every rate, come out exactly as they did live.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "collector/model/result.h"
#include "collector/model/snapshot.h"

namespace rdmatop {

/// `start` is the steady time the recording started; the snapshot stores `taken - start`.
nlohmann::ordered_json snapshot_to_json(const Snapshot& snapshot,
                                        std::chrono::steady_clock::time_point start);

/// The inverse: `taken` becomes `start + offset`. Every key is checked; an error names the path
/// of the offending value ("devices[0].ports[1].counters.rx_bytes: expected an unsigned
/// integer"). Unknown keys are ignored (newer writers may add keys without a version bump).
Result<Snapshot> snapshot_from_json(const nlohmann::json& json,
                                    std::chrono::steady_clock::time_point start = {});

}  // namespace rdmatop
