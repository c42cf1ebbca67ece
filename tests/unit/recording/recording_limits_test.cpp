// #22 item 7: recordings are shared between hosts, so the reader must bound what a file can
// make it do: a line is at most kMaxRecordingLineBytes (the reader buffered any line whole,
// rescanning it for a newline at every 64 KiB chunk: quadratic), and a gzip file may inflate to
// at most kMaxInflationRatio times its size (a 1 MB bomb kept `report --from` busy a minute);
// and a FIFO under a recording's name is refused instead of blocking (#22 item 4).
#include <catch2/catch.hpp>
#include <cerrno>
#include <fstream>
#include <string>

#include "recording/gz_file.h"
#include "recording/recording_reader.h"
#include "recording/recording_writer.h"
#include "tests/support/fifo_unblocker.h"
#include "tests/support/temp_dir.h"

namespace rdmatop {
namespace {

Snapshot padded_snapshot(std::uint64_t seq, std::size_t padding) {
  Snapshot s;
  s.seq = seq;
  s.taken = std::chrono::steady_clock::time_point(std::chrono::seconds(seq));
  s.wall = std::chrono::system_clock::time_point(std::chrono::seconds(1'700'000'000 + seq));
  s.hostname = std::string(padding, 'h');
  return s;
}

/// The recording's header line, as the writer makes it.
std::string header_line(const test::TempDir& tmp) {
  const std::string path = tmp.file("header.jsonl");
  RecordingWriter writer({path, false, 0, 0, 1.0});
  REQUIRE(writer.write(padded_snapshot(1, 1)).ok());
  REQUIRE_FALSE(writer.close().has_value());
  const std::string bytes = test::read_file(path);
  return bytes.substr(0, bytes.find('\n') + 1);
}

TEST_CASE("a recording line longer than the cap stops the reader with a clear error",
          "[recording][limits]") {
  const test::TempDir tmp;
  const std::string path = tmp.file("long.jsonl");
  {
    std::ofstream out(path, std::ios::binary);
    out << header_line(tmp);
    const std::string block(1024 * 1024, 'x');
    for (std::size_t i = 0; i <= kMaxRecordingLineBytes / block.size(); ++i) out << block;
    out << "\n";
  }
  auto reader = RecordingReader::open(path);
  REQUIRE(reader.ok());
  CHECK_FALSE((*reader)->next().has_value());
  REQUIRE((*reader)->error().has_value());
  CHECK((*reader)->error()->message == path + ":2: line longer than " +
                                           std::to_string(kMaxRecordingLineBytes) +
                                           " bytes: not a snapshot rdmatop wrote");
}

TEST_CASE("a gzip recording that inflates far beyond its size is refused", "[recording][limits]") {
  const test::TempDir tmp;
  const std::string path = tmp.file("bomb.jsonl.gz");
  {
    // Identical 1 MiB snapshots compress about 1000:1, as only a crafted file does.
    RecordingWriter writer({path, true, 0, 0, 1.0});
    for (std::uint64_t seq = 1; seq <= 96; ++seq) {
      REQUIRE(writer.write(padded_snapshot(seq, 1024 * 1024)).ok());
    }
    REQUIRE_FALSE(writer.close().has_value());
  }
  auto reader = RecordingReader::open(path);
  REQUIRE(reader.ok());
  std::size_t read = 0;
  while ((*reader)->next()) ++read;
  CHECK(read < 96);
  REQUIRE((*reader)->error().has_value());
  CHECK_THAT((*reader)->error()->message,
             Catch::Contains("inflates to more than 200 times its size on disk"));

  // The same recording, plain: read in full (the cap concerns compression only).
  const std::string plain = tmp.file("plain.jsonl");
  {
    RecordingWriter writer({plain, false, 0, 0, 1.0});
    for (std::uint64_t seq = 1; seq <= 96; ++seq) {
      REQUIRE(writer.write(padded_snapshot(seq, 1024 * 1024)).ok());
    }
  }
  auto whole = RecordingReader::open(plain);
  REQUIRE(whole.ok());
  std::size_t all = 0;
  while ((*whole)->next()) ++all;
  CHECK(all == 96);
  CHECK_FALSE((*whole)->error().has_value());
}

TEST_CASE("a recording that is a FIFO is refused", "[bounded_file][recording]") {
  test::TempDir dir;
  const test::FifoUnblocker fifo(dir.file("rec.jsonl"));
  const auto reader = RecordingReader::open(dir.file("rec.jsonl"));
  REQUIRE_FALSE(reader.ok());
  CHECK(reader.error().code == EINVAL);
  CHECK(reader.error().message == dir.file("rec.jsonl") + ": a FIFO, not a regular file");
}

}  // namespace
}  // namespace rdmatop
