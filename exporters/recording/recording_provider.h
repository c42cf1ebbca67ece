// Replays a recording through the Monitor (TUI, exporter and `report --from`).
#pragma once

#include <memory>

#include "exporters/monitor/monitor.h"
#include "exporters/recording/recording_reader.h"
#include "exporters/recording/recording_time.h"

namespace rdmatop {

/// Yields the reader's snapshots in file order (their recorded seq is kept; the Monitor's seq
/// is ignored), limited to `window`: snapshots before `from` are skipped, the first one after
/// `to` ends the replay. The caller keeps `reader` to check reader->error() at the end.
SnapshotProvider recording_provider(std::shared_ptr<RecordingReader> reader,
                                    RecordingWindow window = {});

}  // namespace rdmatop
