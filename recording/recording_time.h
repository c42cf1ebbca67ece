// Times and durations on the command line of recording and replay (docs/recording.md): pure
// parsers, so every accepted and rejected spelling is unit-tested.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "collector/model/result.h"
#include "collector/model/snapshot.h"

namespace rdmatop {

/// "90", "90s", "500ms", "1.5m", "2h", "3d" (a bare number is seconds). Negative, empty, NaN
/// and absurd (> 100 years) values are errors.
Result<std::chrono::nanoseconds> parse_duration(std::string_view text);

/// A point in a recording: an offset from its start ("+90s") or a wall time (RFC3339 with a
/// `Z` or `±HH:MM` zone, optional fraction: "2026-11-30T10:30:00Z", "...T12:30:00.5+02:00").
struct RecordingTime {
  std::variant<std::chrono::nanoseconds, std::chrono::system_clock::time_point> value;
};
Result<RecordingTime> parse_recording_time(std::string_view text);

/// "FROM..TO"; either side may be empty (open). FROM after TO is an error only when both are
/// the same kind (offset or wall), because only then can they be compared without a recording.
struct RecordingWindow {
  std::optional<RecordingTime> from;
  std::optional<RecordingTime> to;
};
Result<RecordingWindow> parse_recording_window(std::string_view text);

/// Replayed snapshots carry their offset from the recording start as `taken` (see
/// snapshot_json.h), so both kinds of time compare against a snapshot directly.
bool is_before(const Snapshot& snapshot, const RecordingTime& time);
bool is_after(const Snapshot& snapshot, const RecordingTime& time);

/// UTC with milliseconds: "2026-11-30T10:30:00.123Z".
std::string format_rfc3339(std::chrono::system_clock::time_point t);

}  // namespace rdmatop
