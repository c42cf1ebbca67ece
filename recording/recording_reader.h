// Reads a recording back, one snapshot at a time (plain or gzip, detected by zlib). Damage
// (bad JSON, a wrong value, a truncated file) stops the reader with an error naming the line;
// every snapshot before it has been returned, so callers can still use the good prefix.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "collector/model/result.h"
#include "collector/model/snapshot.h"
#include "recording/gz_file.h"
#include "recording/recording_format.h"

namespace rdmatop {

/// The longest line (one snapshot) a reader accepts. A snapshot of a large host (16 RDMA
/// devices, a few thousand raw counters, QP counters and processes) is well under 4 MiB;
/// 64 MiB bounds what a damaged or hostile file can make the reader buffer.
inline constexpr std::size_t kMaxRecordingLineBytes = 64 * 1024 * 1024;

class RecordingReader {
 public:
  /// Opens `path` and reads its header. Errors: unreadable file, empty file, not a recording,
  /// a newer format version.
  static Result<std::unique_ptr<RecordingReader>> open(const std::string& path);

  const RecordingHeader& header() const { return header_; }

  /// The next snapshot in file order, with `taken` = (steady epoch + offset from the recording
  /// start). nullopt at the end of the file or after damage (then see error()).
  std::optional<Snapshot> next();

  /// Why reading stopped early: "FILE:LINE: what". Empty after a clean end.
  const std::optional<Error>& error() const { return error_; }

 private:
  RecordingReader(GzFile file, std::string path) : file_(std::move(file)), path_(std::move(path)) {}

  /// The next line without its newline; nullopt at a clean end or on damage (sets error_).
  /// `complete` is false for a last line that has no newline (a cut-off write).
  std::optional<std::string> next_line(bool& complete);
  void fail(const std::string& what);

  GzFile file_;
  std::string path_;
  RecordingHeader header_;
  std::string buffer_;
  std::size_t buffer_pos_ = 0;
  bool eof_ = false;
  bool done_ = false;
  std::uint64_t line_ = 0;
  std::optional<Error> error_;
};

}  // namespace rdmatop
