#include "recording/recording_set.h"

#include <algorithm>
#include <utility>

namespace rdmatop {

namespace {

/// Beyond this many files, each is closed after its first snapshot is read and reopened when
/// the replay reaches it: `--rotate` allows 1,000 old files, more than a process may open.
constexpr std::size_t kMaxFilesKeptOpen = 16;

/// The first header key in which `b` differs from `a`, as `key X vs Y`; empty when equal.
std::string header_difference(const RecordingHeader& a, const RecordingHeader& b) {
  const auto quoted = [](const std::string& s) { return "\"" + s + "\""; };
  if (a.version != b.version) {
    return "format version " + std::to_string(b.version) + " vs " + std::to_string(a.version);
  }
  if (a.rdmatop_version != b.rdmatop_version) {
    return "rdmatop_version " + quoted(b.rdmatop_version) + " vs " + quoted(a.rdmatop_version);
  }
  if (a.host != b.host) return "host " + quoted(b.host) + " vs " + quoted(a.host);
  if (a.started_at != b.started_at) {
    return "started_at " + quoted(b.started_at) + " vs " + quoted(a.started_at);
  }
  if (a.interval_seconds != b.interval_seconds) {
    return "interval_seconds " + std::to_string(b.interval_seconds) + " vs " +
           std::to_string(a.interval_seconds);
  }
  return {};
}

/// The line of a file's first snapshot: the header is line 1.
constexpr const char* kFirstSnapshotLine = ":2: ";

}  // namespace

Result<std::unique_ptr<RecordingSet>> RecordingSet::open(const std::vector<std::string>& paths) {
  if (paths.empty()) return Error{0, "no recording file given"};
  std::unique_ptr<RecordingSet> set(new RecordingSet());
  const bool keep_open = paths.size() <= kMaxFilesKeptOpen;
  for (const std::string& path : paths) {
    auto reader = RecordingReader::open(path);
    if (!reader) return reader.error();
    Part part{path, std::nullopt, std::move(reader).value(), std::nullopt};
    if (set->parts_.empty()) {
      set->header_ = part.reader->header();
    } else if (const std::string diff = header_difference(set->header_, part.reader->header());
               !diff.empty()) {
      // Every file of one rotated recording carries the same header (recording_writer.cpp).
      return Error{
          0, path + ":1: not part of the same recording as " + paths.front() + " (" + diff + ")"};
    }
    part.first = part.reader->next();
    if (part.first) part.first_seq = part.first->seq;
    if (!keep_open) {
      part.reader.reset();
      part.first.reset();
    }
    set->parts_.push_back(std::move(part));
  }
  // By first snapshot; files with none go last (a crash right after a rotation leaves one).
  std::stable_sort(set->parts_.begin(), set->parts_.end(), [](const Part& a, const Part& b) {
    if (!a.first_seq || !b.first_seq) return a.first_seq.has_value() && !b.first_seq;
    return *a.first_seq < *b.first_seq;
  });
  for (std::size_t i = 1; i < set->parts_.size(); ++i) {
    const Part& a = set->parts_[i - 1];
    const Part& b = set->parts_[i];
    if (a.first_seq && a.first_seq == b.first_seq) {
      return Error{0, b.path + kFirstSnapshotLine + "starts at the same snapshot (seq " +
                          std::to_string(*b.first_seq) + ") as " + a.path +
                          ": one part of the recording given twice"};
    }
  }
  return set;
}

std::vector<std::string> RecordingSet::files() const {
  std::vector<std::string> out;
  out.reserve(parts_.size());
  for (const Part& p : parts_) out.push_back(p.path);
  return out;
}

std::optional<Snapshot> RecordingSet::fail(const std::string& path, const std::string& what) {
  error_ = Error{0, path + kFirstSnapshotLine + what};
  done_ = true;
  return std::nullopt;
}

/// The first snapshot of `part`, checked to continue the timeline right after the previous
/// file's last snapshot.
std::optional<Snapshot> RecordingSet::start_part(Part& part) {
  std::optional<Snapshot> first;
  if (part.reader) {
    first = std::move(part.first);
  } else {
    auto reopened = RecordingReader::open(part.path);
    if (!reopened) {
      error_ = reopened.error();
      done_ = true;
      return std::nullopt;
    }
    part.reader = std::move(reopened).value();
    first = part.reader->next();
    if (first.has_value() != part.first_seq.has_value() ||
        (first && first->seq != *part.first_seq)) {
      return fail(part.path,
                  "the file changed while it was replayed (rotated by a running rdmatop "
                  "record?)");
    }
  }
  if (!first || !last_seq_) return first;
  if (first->seq <= *last_seq_) {
    return fail(part.path, "overlaps " + last_path_ + ": starts at snapshot seq " +
                               std::to_string(first->seq) + ", which " + last_path_ +
                               " already reached (seq " + std::to_string(*last_seq_) + ")");
  }
  if (first->seq != *last_seq_ + 1) {
    return fail(part.path, "gap after " + last_path_ + ": snapshots seq " +
                               std::to_string(*last_seq_ + 1) + ".." +
                               std::to_string(first->seq - 1) +
                               " are missing (a file of the recording was not given)");
  }
  return first;
}

std::optional<Snapshot> RecordingSet::next() {
  while (!done_ && current_ < parts_.size()) {
    Part& part = parts_[current_];
    std::optional<Snapshot> snapshot;
    if (!started_) {
      started_ = true;
      snapshot = start_part(part);
      if (done_) return std::nullopt;
    } else {
      snapshot = part.reader->next();
    }
    if (snapshot) {
      last_seq_ = snapshot->seq;
      last_path_ = part.path;
      return snapshot;
    }
    if (part.reader->error()) {
      error_ = part.reader->error();
      done_ = true;
      return std::nullopt;
    }
    part.reader.reset();  // a clean end: on to the next file
    ++current_;
    started_ = false;
  }
  done_ = true;
  return std::nullopt;
}

}  // namespace rdmatop
