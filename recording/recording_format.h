// The recording file format (docs/recording.md): JSON Lines, a header line then one snapshot per
// line. Pure encode/decode of the lines; files are handled by recording_{reader,writer}.
#pragma once

#include <string>
#include <string_view>

#include "collector/model/result.h"

namespace rdmatop {

inline constexpr const char* kRecordingFormat = "rdmatop.recording";
/// Bumped only when an older reader would misread a newer file (a key removed or re-typed).
inline constexpr int kRecordingFormatVersion = 1;

struct RecordingHeader {
  int version = kRecordingFormatVersion;
  std::string rdmatop_version;
  std::string host;
  std::string started_at;  ///< RFC3339 UTC wall time of the recording start (first snapshot)
  double interval_seconds = 0;

  bool operator==(const RecordingHeader&) const = default;
};

/// One line, without the trailing newline.
std::string encode_header(const RecordingHeader& header);
/// Errors say what is wrong: not JSON, not a recording, a newer version, a missing key.
Result<RecordingHeader> decode_header(std::string_view line);

}  // namespace rdmatop
