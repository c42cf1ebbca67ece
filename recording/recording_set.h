// The files of one recording read as one timeline: a rotated recording (FILE, FILE.1 ...
// FILE.K from `rdmatop record --rotate`, given in any order, e.g. by a shell glob) or a single
// file. The files are put in order by their own snapshots' sequence numbers, not by their
// names, and must join up exactly (docs/recording.md, "Rotated recordings").
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collector/model/result.h"
#include "collector/model/snapshot.h"
#include "recording/recording_format.h"
#include "recording/recording_reader.h"

namespace rdmatop {

class RecordingSet {
 public:
  /// Reads every file's header and first snapshot and orders the files by that snapshot's seq.
  /// Errors (nothing is replayed): no file, a file that RecordingReader::open refuses, a header
  /// that differs from the first file's (another recording, another format version), two files
  /// that start with the same snapshot (one file given twice).
  static Result<std::unique_ptr<RecordingSet>> open(const std::vector<std::string>& paths);

  /// The header all the files share.
  const RecordingHeader& header() const { return header_; }
  /// The files in timeline order (a file without a readable snapshot comes last).
  std::vector<std::string> files() const;

  /// The next snapshot of the timeline; nullopt at its end or when reading stops early (then
  /// see error()). Stops early, like a single damaged file, at damage in any file, at a gap
  /// (the next file does not start right after the previous one's last snapshot: a file is
  /// missing) and at an overlap (it starts at or before it).
  std::optional<Snapshot> next();

  /// Why reading stopped early: "FILE:LINE: what". Empty after a clean end.
  const std::optional<Error>& error() const { return error_; }

 private:
  struct Part {
    std::string path;
    std::optional<std::uint64_t> first_seq;  ///< nullopt: no readable snapshot
    /// Kept open from open() when the set is small; otherwise reopened when its turn comes.
    std::unique_ptr<RecordingReader> reader;
    std::optional<Snapshot> first;  ///< the snapshot open() read, while `reader` is kept
  };

  RecordingSet() = default;
  std::optional<Snapshot> start_part(Part& part);
  std::optional<Snapshot> fail(const std::string& path, const std::string& what);

  RecordingHeader header_;
  std::vector<Part> parts_;
  std::size_t current_ = 0;  ///< index into parts_ of the file being read
  bool started_ = false;     ///< parts_[current_] has been started
  std::optional<std::uint64_t> last_seq_;
  std::string last_path_;
  bool done_ = false;
  std::optional<Error> error_;
};

}  // namespace rdmatop
