#include "recording/recording_reader.h"

#include <array>
#include <cerrno>
#include <nlohmann/json.hpp>

#include "recording/snapshot_json.h"

namespace rdmatop {

Result<std::unique_ptr<RecordingReader>> RecordingReader::open(const std::string& path) {
  auto file = GzFile::open_read(path);
  if (!file) return file.error();
  std::unique_ptr<RecordingReader> reader(new RecordingReader(std::move(file).value(), path));
  bool complete = true;
  auto line = reader->next_line(complete);
  if (!line) {
    if (reader->error_) return *reader->error_;
    return Error{0, path + ": empty file (no recording header)"};
  }
  auto header = decode_header(*line);
  if (!header) return Error{0, path + ":1: " + header.error().message};
  reader->header_ = std::move(header).value();
  return reader;
}

void RecordingReader::fail(const std::string& what) {
  error_ = Error{0, path_ + ":" + std::to_string(line_) + ": " + what};
  done_ = true;
}

std::optional<std::string> RecordingReader::next_line(bool& complete) {
  complete = true;
  // Where the search for the next newline resumes: the bytes before it hold none, so a long
  // line is scanned once, not once per chunk (which made reading quadratic in line length).
  std::size_t scan_from = buffer_pos_;
  while (true) {
    const auto newline = buffer_.find('\n', scan_from);
    if (newline != std::string::npos) {
      if (newline - buffer_pos_ > kMaxRecordingLineBytes) break;
      std::string line = buffer_.substr(buffer_pos_, newline - buffer_pos_);
      buffer_pos_ = newline + 1;
      ++line_;
      return line;
    }
    if (eof_) break;
    if (buffer_.size() - buffer_pos_ > kMaxRecordingLineBytes) break;
    // Keep only the unfinished line, so memory is bounded by the longest line.
    buffer_.erase(0, buffer_pos_);
    buffer_pos_ = 0;
    scan_from = buffer_.size();
    std::array<char, 64 * 1024> chunk{};
    auto n = file_.read(chunk.data(), chunk.size());
    if (!n) {
      ++line_;
      // The file is already named at the front of the message.
      std::string_view detail = n.error().message;
      if (detail.substr(0, path_.size() + 2) == path_ + ": ")
        detail.remove_prefix(path_.size() + 2);
      if (n.error().code == EFBIG) {
        fail(std::string(detail));
      } else {
        fail("truncated or damaged file (" + std::string(detail) + ")");
      }
      return std::nullopt;
    }
    if (*n == 0) eof_ = true;
    buffer_.append(chunk.data(), *n);
  }
  if (buffer_.size() - buffer_pos_ > kMaxRecordingLineBytes) {
    ++line_;
    fail("line longer than " + std::to_string(kMaxRecordingLineBytes) +
         " bytes: not a snapshot rdmatop wrote");
    return std::nullopt;
  }
  if (buffer_pos_ == buffer_.size()) return std::nullopt;  // clean end
  std::string rest = buffer_.substr(buffer_pos_);
  buffer_pos_ = buffer_.size();
  ++line_;
  complete = false;
  return rest;
}

std::optional<Snapshot> RecordingReader::next() {
  if (done_) return std::nullopt;
  bool complete = true;
  const auto line = next_line(complete);
  if (!line) {
    done_ = true;
    return std::nullopt;
  }
  const auto doc = nlohmann::json::parse(*line, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    fail(complete ? "not a JSON object (damaged line)"
                  : "truncated: the last line ends without a newline");
    return std::nullopt;
  }
  auto snapshot = snapshot_from_json(doc);
  if (!snapshot) {
    fail(snapshot.error().message);
    return std::nullopt;
  }
  return std::move(snapshot).value();
}

}  // namespace rdmatop
