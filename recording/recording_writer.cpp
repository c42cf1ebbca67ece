#include "recording/recording_writer.h"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <system_error>
#include <utility>

#include "recording/recording_time.h"
#include "recording/snapshot_json.h"

namespace rdmatop {

RecordingWriter::RecordingWriter(RecordingWriterOptions options) : options_(std::move(options)) {}

std::optional<Error> RecordingWriter::open_file() {
  auto file = GzFile::open_write(options_.path, options_.gzip);
  if (!file) return file.error();
  file_.emplace(std::move(file).value());
  // Every file of a rotated recording carries the same header and offsets from the same start,
  // so each file replays on its own and "+90s" means the same moment in all of them.
  const std::string line = encode_header(header_) + "\n";
  if (auto err = file_->write(line)) return err;
  file_bytes_ = line.size();
  file_snapshots_ = 0;
  return std::nullopt;
}

std::optional<Error> RecordingWriter::rotate_files() {
  if (auto err = close()) return err;
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto numbered = [this](unsigned k) { return options_.path + "." + std::to_string(k); };
  // rename() replaces the target, so the oldest file (FILE.K) is dropped by the first move.
  for (unsigned k = options_.rotate; k > 1; --k) {
    if (!fs::exists(numbered(k - 1), ec)) continue;
    fs::rename(numbered(k - 1), numbered(k), ec);
    if (ec) return Error{ec.value(), "rotate " + numbered(k - 1) + ": " + ec.message()};
  }
  fs::rename(options_.path, numbered(1), ec);
  if (ec) return Error{ec.value(), "rotate " + options_.path + ": " + ec.message()};
  return open_file();
}

Result<bool> RecordingWriter::write(const Snapshot& snapshot) {
  if (!file_) {
    if (snapshots_ > 0) return false;  // closed after the cap was reached
    start_ = snapshot.taken;
    header_ = RecordingHeader{kRecordingFormatVersion, RDMATOP_VERSION, snapshot.hostname,
                              format_rfc3339(snapshot.wall), options_.interval_seconds};
    if (auto err = open_file()) return *err;
  }
  // Invalid UTF-8 from a driver string becomes U+FFFD rather than aborting the recording.
  const std::string line = snapshot_to_json(snapshot, start_)
                               .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) +
                           "\n";
  if (options_.max_bytes > 0 && file_snapshots_ > 0 &&
      file_bytes_ + line.size() > options_.max_bytes) {
    if (options_.rotate == 0) {
      if (auto err = close()) return *err;
      return false;
    }
    if (auto err = rotate_files()) return *err;
  }
  if (auto err = file_->write(line)) return *err;
  if (auto err = file_->flush()) return *err;
  file_bytes_ += line.size();
  ++file_snapshots_;
  ++snapshots_;
  return true;
}

std::optional<Error> RecordingWriter::close() {
  if (!file_) return std::nullopt;
  auto err = file_->close();
  file_.reset();
  return err;
}

}  // namespace rdmatop
