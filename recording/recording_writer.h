// Streams snapshots into a recording file, one line each, flushed per line: memory stays
// bounded however long it runs, and a crash loses at most the line being written. Optionally
// caps the file size and rotates (FILE -> FILE.1 -> ... -> FILE.K).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "collector/model/result.h"
#include "collector/model/snapshot.h"
#include "recording/gz_file.h"
#include "recording/recording_format.h"

namespace rdmatop {

struct RecordingWriterOptions {
  std::string path;
  bool gzip = false;
  /// Cap on the bytes of one file before compression (0: none). A file always holds its header
  /// and at least one snapshot, even when that alone exceeds the cap.
  std::uint64_t max_bytes = 0;
  /// Older files kept when the cap is reached (FILE.1 newest .. FILE.K oldest); 0: stop.
  unsigned rotate = 0;
  double interval_seconds = 0;  ///< the intended interval, recorded in the header
};

class RecordingWriter {
 public:
  explicit RecordingWriter(RecordingWriterOptions options);

  /// Appends one snapshot. The first one opens the file and fixes the recording start (its
  /// wall time and steady time). Returns false, writing nothing, when the cap is reached and
  /// rotation is off: the recording is complete.
  Result<bool> write(const Snapshot& snapshot);
  /// Flushes and closes the current file (also done by the destructor, ignoring errors).
  std::optional<Error> close();

  std::uint64_t snapshots_written() const { return snapshots_; }

 private:
  std::optional<Error> open_file();
  std::optional<Error> rotate_files();

  RecordingWriterOptions options_;
  RecordingHeader header_;
  std::chrono::steady_clock::time_point start_{};
  std::optional<GzFile> file_;
  std::uint64_t file_bytes_ = 0;      ///< uncompressed bytes in the current file
  std::uint64_t file_snapshots_ = 0;  ///< snapshots in the current file
  std::uint64_t snapshots_ = 0;
};

}  // namespace rdmatop
