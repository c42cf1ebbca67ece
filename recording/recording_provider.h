// Replays a recording through the Monitor (TUI, exporter and `report --from`).
#pragma once

#include <memory>

#include "collector/snapshot_provider.h"
#include "recording/recording_set.h"
#include "recording/recording_time.h"

namespace rdmatop {

/// Yields the recording's snapshots in timeline order (their recorded seq is kept; the Monitor's
/// seq is ignored), limited to `window`: snapshots before `from` are skipped, the first one
/// after `to` ends the replay. The caller keeps `recording` to check its error() at the end.
SnapshotProvider recording_provider(std::shared_ptr<RecordingSet> recording,
                                    RecordingWindow window = {});

}  // namespace rdmatop
