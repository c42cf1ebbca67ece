// Writer, reader and replay provider on real files in a temporary directory.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "collector/collect.h"
#include "collector/source/ethtool_source.h"
#include "collector/source/file_source.h"
#include "exporters/report/report_render.h"
#include "pipeline/monitor.h"
#include "recording/recording_provider.h"
#include "recording/recording_reader.h"
#include "recording/recording_set.h"
#include "recording/recording_writer.h"
#include "rules/rule_set.h"
#include "simulator/simulator.h"
#include "tests/support/temp_dir.h"

using namespace rdmatop;
namespace fs = std::filesystem;

namespace {

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

/// Small scripted snapshots (a counter growing 100 per second).
Snapshot small_snapshot(std::uint64_t seq) {
  Snapshot s;
  s.seq = seq;
  s.taken = std::chrono::steady_clock::time_point(std::chrono::seconds(5000 + seq));
  s.wall = std::chrono::system_clock::time_point(std::chrono::seconds(1'796'034'600 + seq));
  s.hostname = "h";
  DeviceSample d;
  d.name = "rxe0";
  d.driver = "rxe";
  PortSample p;
  p.port = 1;
  p.hw_counters = {{"sent_pkts", 100 * seq}};
  d.ports.push_back(p);
  s.devices.push_back(d);
  return s;
}

/// What replay gives back for `s` recorded from `start`: `taken` on the replay epoch.
Snapshot rebased(Snapshot s, std::chrono::steady_clock::time_point start) {
  s.taken = std::chrono::steady_clock::time_point(s.taken - start);
  return s;
}

void record(const std::vector<Snapshot>& snapshots, const RecordingWriterOptions& options) {
  RecordingWriter writer(options);
  for (const auto& s : snapshots) {
    const auto written = writer.write(s);
    REQUIRE(written.ok());
    REQUIRE(written.value());
  }
  REQUIRE_FALSE(writer.close().has_value());
}

struct ReadBack {
  std::vector<Snapshot> snapshots;
  std::optional<Error> error;
};

ReadBack read_all(const std::string& path) {
  auto reader = RecordingReader::open(path);
  if (!reader) FAIL(reader.error().message);
  ReadBack out;
  while (auto s = reader.value()->next()) out.snapshots.push_back(std::move(*s));
  out.error = reader.value()->error();
  return out;
}

std::vector<Snapshot> small_run(int n) {
  std::vector<Snapshot> out;
  for (int i = 1; i <= n; ++i) out.push_back(small_snapshot(static_cast<std::uint64_t>(i)));
  return out;
}

/// Every report of a Monitor run over `provider`, rendered as JSON: rates, findings and all.
std::vector<std::string> monitor_run(SnapshotProvider provider) {
  RuleSetLoad rules = load_rule_set({}, true);
  REQUIRE(rules.errors.empty());
  Monitor monitor(std::move(provider), std::move(rules.groups));
  std::vector<std::string> out;
  while (auto report = monitor.step()) out.push_back(render_report_json(*report));
  return out;
}

SnapshotProvider vector_provider(std::vector<Snapshot> snapshots) {
  return [snapshots = std::move(snapshots)](std::uint64_t seq) -> std::optional<Snapshot> {
    if (seq > snapshots.size()) return std::nullopt;
    return snapshots[seq - 1];
  };
}

std::shared_ptr<RecordingSet> open_shared(const std::string& path) {
  auto reader = RecordingSet::open({path});
  if (!reader) FAIL(reader.error().message);
  return std::move(reader).value();
}

}  // namespace

TEST_CASE("Fixture hosts: record -> replay gives the same snapshots and the same findings",
          "[recording][fixtures]") {
  for (const char* host : {"mlx5", "bnxt", "irdma", "rxe", "degraded"}) {
    INFO(host);
    const std::string dir = std::string(RDMATOP_SOURCE_DIR) + "/tests/fixtures/hosts/" + host;
    const auto sysfs = make_directory_file_source(dir + "/sys");
    const auto ethtool = make_dump_ethtool_source(dir + "/ethtool");
    const CollectContext ctx{*sysfs, *ethtool, {}};
    std::vector<Snapshot> live;
    for (std::uint64_t seq = 1; seq <= 3; ++seq) live.push_back(collect_snapshot(ctx, seq));
    REQUIRE_FALSE(live.front().devices.empty());

    const test::TempDir tmp;
    const std::string path = tmp.file("rec.jsonl");
    record(live, {path, false, 0, 0, 1.0});
    const ReadBack back = read_all(path);
    CHECK_FALSE(back.error.has_value());
    REQUIRE(back.snapshots.size() == live.size());
    for (std::size_t i = 0; i < live.size(); ++i) {
      CHECK(back.snapshots[i] == rebased(live[i], live.front().taken));
    }
    // Two Monitors, one on the live snapshots, one on the replay: identical reports.
    const auto live_reports = monitor_run(vector_provider(live));
    const auto replay_reports = monitor_run(recording_provider(open_shared(path)));
    CHECK(replay_reports == live_reports);
    // Deterministic: a second replay is identical too.
    CHECK(monitor_run(recording_provider(open_shared(path))) == replay_reports);
  }
}

TEST_CASE("The header describes the recording", "[recording][file]") {
  const test::TempDir tmp;
  const std::string path = tmp.file("rec.jsonl");
  record(small_run(2), {path, false, 0, 0, 2.5});
  const auto reader = open_shared(path);
  CHECK(reader->header() ==
        RecordingHeader{1, RDMATOP_VERSION, "h", "2026-11-30T10:30:01.000Z", 2.5});
  const std::string bytes = test::read_file(path);
  CHECK(bytes.rfind(R"({"format":"rdmatop.recording","version":1,)", 0) == 0);
  CHECK(std::count(bytes.begin(), bytes.end(), '\n') == 3);
}

TEST_CASE("Gzip recordings round-trip and are compressed", "[recording][file]") {
  const test::TempDir tmp;
  const auto snapshots = small_run(50);
  record(snapshots, {tmp.file("rec.jsonl.gz"), true, 0, 0, 1.0});
  record(snapshots, {tmp.file("rec.jsonl"), false, 0, 0, 1.0});
  const std::string gz = test::read_file(tmp.file("rec.jsonl.gz"));
  REQUIRE(gz.size() > 2);
  CHECK(static_cast<unsigned char>(gz[0]) == 0x1f);
  CHECK(static_cast<unsigned char>(gz[1]) == 0x8b);
  CHECK(gz.size() < test::read_file(tmp.file("rec.jsonl")).size());
  const ReadBack back = read_all(tmp.file("rec.jsonl.gz"));
  CHECK_FALSE(back.error.has_value());
  REQUIRE(back.snapshots.size() == snapshots.size());
  for (std::size_t i = 0; i < snapshots.size(); ++i) {
    CHECK(back.snapshots[i] == rebased(snapshots[i], snapshots.front().taken));
  }
}

TEST_CASE("A plain recording cut at any byte keeps its good prefix and names the line",
          "[recording][file]") {
  const test::TempDir tmp;
  const auto snapshots = small_run(4);
  const std::string full_path = tmp.file("full.jsonl");
  record(snapshots, {full_path, false, 0, 0, 1.0});
  const std::string full = test::read_file(full_path);
  const std::size_t header_end = full.find('\n');
  const std::string cut = tmp.file("cut.jsonl");
  for (std::size_t offset = 0; offset < full.size(); offset += 7) {
    INFO("offset " << offset);
    write_bytes(cut, full.substr(0, offset));
    auto reader = RecordingReader::open(cut);
    if (offset < header_end) {
      REQUIRE_FALSE(reader.ok());
      CHECK(reader.error().message.find(cut + ":") == 0);
      continue;
    }
    REQUIRE(reader.ok());
    std::vector<Snapshot> got;
    while (auto s = reader.value()->next()) got.push_back(*s);
    const std::string prefix = full.substr(0, offset);
    const auto complete_lines =
        static_cast<std::size_t>(std::count(prefix.begin(), prefix.end(), '\n'));
    const std::size_t complete_snapshots = complete_lines == 0 ? 0 : complete_lines - 1;
    // Every snapshot returned is the recorded one, in order.
    REQUIRE(got.size() <= snapshots.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      CHECK(got[i] == rebased(snapshots[i], snapshots.front().taken));
    }
    const bool at_line_end =
        offset == header_end || full[offset - 1] == '\n' || full[offset] == '\n';
    if (at_line_end) {
      // A cut right before a newline leaves a complete JSON line: still used.
      CHECK_FALSE(reader.value()->error().has_value());
      CHECK(got.size() >= complete_snapshots);
    } else {
      CHECK(got.size() == complete_snapshots);
      REQUIRE(reader.value()->error().has_value());
      const std::string expected = cut + ":" + std::to_string(complete_lines + 1) +
                                   ": truncated: the last line ends without a newline";
      CHECK(reader.value()->error()->message == expected);
    }
  }
}

TEST_CASE("A gzip recording cut at any byte keeps its good prefix and reports the damage",
          "[recording][file]") {
  const test::TempDir tmp;
  const auto snapshots = small_run(6);
  const std::string full_path = tmp.file("full.jsonl.gz");
  record(snapshots, {full_path, true, 0, 0, 1.0});
  const std::string full = test::read_file(full_path);
  const std::string cut = tmp.file("cut.jsonl.gz");
  std::size_t errors_seen = 0;
  for (std::size_t offset = 1; offset < full.size(); offset += 5) {
    INFO("offset " << offset);
    write_bytes(cut, full.substr(0, offset));
    auto reader = RecordingReader::open(cut);
    if (!reader.ok()) {
      CHECK(reader.error().message.find(cut) == 0);
      continue;
    }
    std::vector<Snapshot> got;
    while (auto s = reader.value()->next()) got.push_back(*s);
    REQUIRE(got.size() <= snapshots.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      CHECK(got[i] == rebased(snapshots[i], snapshots.front().taken));
    }
    // The gzip trailer is missing, so the end of the file is never clean.
    REQUIRE(reader.value()->error().has_value());
    CHECK(reader.value()->error()->message.find(cut + ":") == 0);
    ++errors_seen;
  }
  CHECK(errors_seen > 0);
}

TEST_CASE("A damaged line in the middle stops the replay there", "[recording][file]") {
  const test::TempDir tmp;
  const std::string path = tmp.file("rec.jsonl");
  record(small_run(3), {path, false, 0, 0, 1.0});
  std::string bytes = test::read_file(path);
  // Line 3 (the second snapshot): make a counter negative.
  const auto line3 = bytes.find('\n', bytes.find('\n') + 1) + 1;
  const auto value = bytes.find("\"sent_pkts\":200", line3);
  REQUIRE(value != std::string::npos);
  bytes.replace(value, 15, "\"sent_pkts\":-200");
  write_bytes(path, bytes);
  const ReadBack back = read_all(path);
  CHECK(back.snapshots.size() == 1);
  REQUIRE(back.error.has_value());
  CHECK(back.error->message ==
        path + ":3: devices[0].ports[0].hw_counters.sent_pkts: expected an unsigned integer");

  bytes = test::read_file(path);
  bytes.replace(bytes.find("-200"), 4, "{{{{");
  write_bytes(path, bytes);
  const ReadBack garbage = read_all(path);
  REQUIRE(garbage.error.has_value());
  CHECK(garbage.error->message == path + ":3: not a JSON object (damaged line)");
}

TEST_CASE("Headers that are not a readable recording are refused clearly", "[recording][file]") {
  const test::TempDir tmp;
  const std::string path = tmp.file("rec.jsonl");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", path + ": empty file (no recording header)"},
      {"hello\n", path + ":1: not an rdmatop recording (the first line is not a JSON object)"},
      {R"({"format":"rdmatop.report","version":1})"
       "\n",
       path + ":1: not an rdmatop recording (\"format\" is not \"rdmatop.recording\")"},
      {R"({"format":"rdmatop.recording","version":2,"future":true})"
       "\n",
       path + ":1: recording format version 2 is newer than this rdmatop supports (1)"},
      {R"({"format":"rdmatop.recording","version":0})"
       "\n",
       path + ":1: header: \"version\" must be a positive integer"},
      {R"({"format":"rdmatop.recording","version":1,"host":"h","started_at":"x","interval_seconds":1})"
       "\n",
       path + ":1: header: \"rdmatop_version\" must be a string"},
  };
  for (const auto& [bytes, expected] : cases) {
    INFO(bytes);
    write_bytes(path, bytes);
    const auto reader = RecordingReader::open(path);
    REQUIRE_FALSE(reader.ok());
    CHECK(reader.error().message == expected);
  }
  const auto missing = RecordingReader::open(tmp.file("nope.jsonl"));
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message.find("nope.jsonl") != std::string::npos);
}

TEST_CASE("An older-or-equal version opens, ignoring keys it does not know", "[recording][file]") {
  const test::TempDir tmp;
  const std::string path = tmp.file("rec.jsonl");
  record(small_run(2), {path, false, 0, 0, 1.0});
  std::string bytes = test::read_file(path);
  bytes.insert(1, R"("added_later":{"x":1},)");
  write_bytes(path, bytes);
  const ReadBack back = read_all(path);
  CHECK_FALSE(back.error.has_value());
  CHECK(back.snapshots.size() == 2);
}

TEST_CASE("Rotation keeps K files of bounded size, newest last", "[recording][file]") {
  const test::TempDir tmp;
  const std::string path = tmp.file("rec.jsonl");
  const auto snapshots = small_run(40);
  // Room for the header and about three snapshot lines per file.
  const std::string one_line = test::read_file([&] {
    record(small_run(1), {tmp.file("probe.jsonl"), false, 0, 0, 1.0});
    return tmp.file("probe.jsonl");
  }());
  const std::uint64_t cap = one_line.size() + 2 * (one_line.size() - one_line.find('\n'));
  for (const bool gzip : {false, true}) {
    INFO("gzip " << gzip);
    record(snapshots, {path, gzip, cap, 2, 1.0});
    CHECK(fs::exists(path));
    CHECK(fs::exists(path + ".1"));
    CHECK(fs::exists(path + ".2"));
    CHECK_FALSE(fs::exists(path + ".3"));
    std::uint64_t previous_last_seq = 0;
    for (const std::string& file : {path + ".2", path + ".1", path}) {
      INFO(file);
      CHECK(fs::file_size(file) <= cap);
      const ReadBack back = read_all(file);
      CHECK_FALSE(back.error.has_value());
      REQUIRE_FALSE(back.snapshots.empty());
      if (previous_last_seq != 0) CHECK(back.snapshots.front().seq == previous_last_seq + 1);
      previous_last_seq = back.snapshots.back().seq;
      // Offsets stay relative to the recording start in every file.
      CHECK(back.snapshots.front().taken.time_since_epoch() ==
            std::chrono::seconds(back.snapshots.front().seq - 1));
    }
    CHECK(previous_last_seq == 40);
  }
}

TEST_CASE("Without rotation the cap ends the recording", "[recording][file]") {
  const test::TempDir tmp;
  const std::string path = tmp.file("rec.jsonl");
  RecordingWriter writer({path, false, 1000, 0, 1.0});
  std::uint64_t seq = 0;
  while (true) {
    const auto written = writer.write(small_snapshot(++seq));
    REQUIRE(written.ok());
    if (!written.value()) break;
    REQUIRE(seq < 1000);
  }
  CHECK_FALSE(writer.close().has_value());
  CHECK(fs::file_size(path) <= 1000);
  CHECK(writer.snapshots_written() == seq - 1);
  CHECK(read_all(path).snapshots.size() == seq - 1);
  CHECK_FALSE(writer.write(small_snapshot(seq + 1)).value());  // stays complete
}

TEST_CASE("A replay window skips early snapshots and stops after the end", "[recording][file]") {
  const test::TempDir tmp;
  const std::string path = tmp.file("rec.jsonl");
  record(small_run(10), {path, false, 0, 0, 1.0});
  // Offsets are 0..9 s; wall times 1796034601..1796034610.
  RecordingWindow window;
  window.from = RecordingTime{std::chrono::nanoseconds(std::chrono::seconds(3))};
  window.to =
      RecordingTime{std::chrono::system_clock::time_point(std::chrono::seconds(1'796'034'607))};
  auto provider = recording_provider(open_shared(path), window);
  std::vector<std::uint64_t> seqs;
  for (std::uint64_t i = 1; auto s = provider(i); ++i) seqs.push_back(s->seq);
  CHECK(seqs == std::vector<std::uint64_t>{4, 5, 6, 7});
}

TEST_CASE("Replay reproduces pending and firing findings tick by tick", "[recording][file]") {
  // Ten minutes at one tick a minute: a rising out_of_buffer counter (fires at once) and an MTU
  // below 4200 on the port's netdev (a `for: 5m` rule: pending first, firing later).
  std::vector<Snapshot> live;
  for (std::uint64_t seq = 1; seq <= 10; ++seq) {
    Snapshot s;
    s.seq = seq;
    s.taken = std::chrono::steady_clock::time_point(std::chrono::minutes(100 + seq));
    s.wall = std::chrono::system_clock::time_point(std::chrono::seconds(1'796'034'600) +
                                                   std::chrono::minutes(seq));
    s.hostname = "h";
    DeviceSample d;
    d.name = "mlx5_0";
    d.driver = "mlx5";
    PortSample p;
    p.port = 1;
    p.state_id = 4;
    p.state = "ACTIVE";
    p.link_layer = "Ethernet";
    p.netdev = "eth0";
    p.hw_counters = {{"out_of_buffer", 1000 * seq}};
    d.ports.push_back(p);
    s.devices.push_back(d);
    NetdevSample n;
    n.name = "eth0";
    n.mtu = 1500;
    n.operstate = "up";
    s.netdevs.push_back(n);
    live.push_back(s);
  }
  const test::TempDir tmp;
  const std::string path = tmp.file("rec.jsonl.gz");
  record(live, {path, true, 0, 0, 60.0});
  const auto live_reports = monitor_run(vector_provider(live));
  const auto replay_reports = monitor_run(recording_provider(open_shared(path)));
  REQUIRE(live_reports.size() == 10);
  CHECK(replay_reports == live_reports);
  // The comparison is only meaningful if the rules did fire.
  CHECK(live_reports.back().find("\"state\": \"firing\"") != std::string::npos);
  CHECK(live_reports.back().find("RdmaOutOfBuffer") != std::string::npos);
}

namespace {

/// `snapshots` recorded with rotation every `per_file` snapshots, keeping
/// `keep` old files; returns the files that exist, newest (`path`) first, as a shell glob
/// `path*` would list them apart from the order (which the set must not depend on).
std::vector<std::string> record_rotated(const std::vector<Snapshot>& snapshots,
                                        const std::string& path, bool gzip, unsigned keep,
                                        std::size_t per_file) {
  // The cap: the header and `per_file` of the longest snapshot lines.
  const test::TempDir probe;
  record(snapshots, {probe.file("all.jsonl"), false, 0, 0, 1.0});
  const std::string all = test::read_file(probe.file("all.jsonl"));
  std::size_t longest = 0;
  for (std::size_t at = all.find('\n') + 1, end = 0; at < all.size(); at = end + 1) {
    end = all.find('\n', at);
    longest = std::max(longest, end + 1 - at);
  }
  record(snapshots, {path, gzip, all.find('\n') + 1 + per_file * longest, keep, 1.0});
  std::vector<std::string> files{path};
  for (unsigned k = 1; fs::exists(path + "." + std::to_string(k)); ++k) {
    files.push_back(path + "." + std::to_string(k));
  }
  return files;
}

struct SetReadBack {
  std::vector<Snapshot> snapshots;
  std::optional<Error> error;
  std::vector<std::string> files;
};

SetReadBack read_set(const std::vector<std::string>& paths) {
  auto set = RecordingSet::open(paths);
  if (!set) FAIL(set.error().message);
  SetReadBack out;
  while (auto s = set.value()->next()) out.snapshots.push_back(std::move(*s));
  out.error = set.value()->error();
  out.files = set.value()->files();
  return out;
}

std::vector<std::uint64_t> seqs_of(const std::vector<Snapshot>& snapshots) {
  std::vector<std::uint64_t> out;
  for (const auto& s : snapshots) out.push_back(s.seq);
  return out;
}

std::vector<std::uint64_t> seq_range(std::uint64_t from, std::uint64_t to) {
  std::vector<std::uint64_t> out;
  for (std::uint64_t s = from; s <= to; ++s) out.push_back(s);
  return out;
}

}  // namespace

TEST_CASE("A rotated recording replays as one timeline, in any order its files are given",
          "[recording][set]") {
  const auto snapshots = small_run(20);
  for (const bool gzip : {false, true}) {
    INFO("gzip " << gzip);
    const test::TempDir tmp;
    // Three snapshots a file, nothing dropped: rec.jsonl.6 (oldest) .. rec.jsonl (newest).
    const auto files = record_rotated(snapshots, tmp.file("rec.jsonl"), gzip, 10, 3);
    REQUIRE(files.size() == 7);
    std::vector<std::string> oldest_first(files.rbegin(), files.rend());
    std::vector<std::string> glob_order = files;  // rec.jsonl, rec.jsonl.1, ... as ls sorts
    std::sort(glob_order.begin(), glob_order.end());
    for (const auto& given : {files, oldest_first, glob_order}) {
      const SetReadBack back = read_set(given);
      CHECK_FALSE(back.error.has_value());
      CHECK(back.files == oldest_first);
      REQUIRE(back.snapshots.size() == snapshots.size());
      for (std::size_t i = 0; i < snapshots.size(); ++i) {
        CHECK(back.snapshots[i] == rebased(snapshots[i], snapshots.front().taken));
      }
    }
    // The same rates and findings, tick by tick, as one file holding the whole run.
    const std::string single = tmp.file("single.jsonl");
    record(snapshots, {single, gzip, 0, 0, 1.0});
    auto set = RecordingSet::open(glob_order);
    REQUIRE(set.ok());
    CHECK(monitor_run(recording_provider(std::move(set).value())) ==
          monitor_run(recording_provider(open_shared(single))));
  }
}

TEST_CASE("A rotated recording whose oldest files were dropped starts later", "[recording][set]") {
  const test::TempDir tmp;
  const auto files = record_rotated(small_run(20), tmp.file("rec.jsonl"), false, 2, 3);
  REQUIRE(files.size() == 3);
  const SetReadBack back = read_set(files);
  CHECK_FALSE(back.error.has_value());
  REQUIRE_FALSE(back.snapshots.empty());
  CHECK(seqs_of(back.snapshots) == seq_range(back.snapshots.front().seq, 20));
  CHECK(back.snapshots.front().seq > 1);
}

TEST_CASE("Many rotated files are reopened in turn, and must not change meanwhile",
          "[recording][set]") {
  const test::TempDir tmp;
  // One snapshot a file: 30 files, more than the set keeps open.
  const auto files = record_rotated(small_run(30), tmp.file("rec.jsonl"), false, 40, 1);
  REQUIRE(files.size() == 30);
  const SetReadBack back = read_set(files);
  CHECK_FALSE(back.error.has_value());
  CHECK(seqs_of(back.snapshots) == seq_range(1, 30));

  // Files moved under the replay between open() and their turn (rec.jsonl.11, seq 19, and
  // rec.jsonl.10, seq 20, swapped): the replay stops before the first one that changed.
  auto set = RecordingSet::open(files);
  REQUIRE(set.ok());
  fs::rename(files[10], tmp.file("moved"));
  fs::rename(files[11], files[10]);
  fs::rename(tmp.file("moved"), files[11]);
  std::vector<Snapshot> got;
  while (auto s = set.value()->next()) got.push_back(*s);
  CHECK(seqs_of(got) == seq_range(1, 18));
  REQUIRE(set.value()->error().has_value());
  CHECK(set.value()->error()->message ==
        files[11] +
            ":2: the file changed while it was replayed (rotated by a running rdmatop record?)");
}

TEST_CASE("A missing file, an overlap or a file given twice is named", "[recording][set]") {
  const test::TempDir tmp;
  const auto files = record_rotated(small_run(9), tmp.file("rec.jsonl"), false, 5, 3);
  REQUIRE(files.size() == 3);  // .2: 1-3, .1: 4-6, rec.jsonl: 7-9

  // A gap: everything before it is still used.
  const SetReadBack gap = read_set({files[0], files[2]});
  CHECK(seqs_of(gap.snapshots) == seq_range(1, 3));
  REQUIRE(gap.error.has_value());
  CHECK(gap.error->message == files[0] + ":2: gap after " + files[2] +
                                  ": snapshots seq 4..6 are missing (a file of the recording "
                                  "was not given)");

  // An overlap: a copy of rec.jsonl.1 without its first snapshot (seq 5-6).
  std::string bytes = test::read_file(files[1]);
  const auto first_line_end = bytes.find('\n', bytes.find('\n') + 1);
  bytes.erase(bytes.find('\n') + 1, first_line_end - bytes.find('\n'));
  const std::string copy = tmp.file("copy.jsonl");
  write_bytes(copy, bytes);
  const SetReadBack overlap = read_set({files[1], copy});
  CHECK(seqs_of(overlap.snapshots) == seq_range(4, 6));
  REQUIRE(overlap.error.has_value());
  CHECK(overlap.error->message == copy + ":2: overlaps " + files[1] +
                                      ": starts at snapshot seq 5, which " + files[1] +
                                      " already reached (seq 6)");

  const auto twice = RecordingSet::open({files[1], files[0], files[1]});
  REQUIRE_FALSE(twice.ok());
  CHECK(twice.error().message == files[1] + ":2: starts at the same snapshot (seq 4) as " +
                                     files[1] + ": one part of the recording given twice");
  CHECK_FALSE(RecordingSet::open({}).ok());
}

TEST_CASE("Files of different recordings or versions are refused", "[recording][set]") {
  const test::TempDir tmp;
  const auto files = record_rotated(small_run(6), tmp.file("rec.jsonl"), false, 5, 3);
  REQUIRE(files.size() == 2);
  // Another run: started a second later.
  std::vector<Snapshot> later = small_run(7);
  later.erase(later.begin());
  record(later, {tmp.file("other.jsonl"), false, 0, 0, 1.0});
  const auto other = RecordingSet::open({files[1], tmp.file("other.jsonl")});
  REQUIRE_FALSE(other.ok());
  CHECK(other.error().message == tmp.file("other.jsonl") +
                                     ":1: not part of the same recording as " + files[1] +
                                     " (started_at \"2026-11-30T10:30:02.000Z\" vs "
                                     "\"2026-11-30T10:30:01.000Z\")");

  std::string bytes = test::read_file(files[0]);
  const std::string version = std::string("\"rdmatop_version\":\"") + RDMATOP_VERSION + "\"";
  REQUIRE(bytes.find(version) != std::string::npos);
  bytes.replace(bytes.find(version), version.size(), "\"rdmatop_version\":\"0.0.1\"");
  write_bytes(tmp.file("old.jsonl"), bytes);
  const auto mixed = RecordingSet::open({files[1], tmp.file("old.jsonl")});
  REQUIRE_FALSE(mixed.ok());
  CHECK(mixed.error().message == tmp.file("old.jsonl") + ":1: not part of the same recording as " +
                                     files[1] + " (rdmatop_version \"0.0.1\" vs \"" +
                                     RDMATOP_VERSION + "\")");

  write_bytes(tmp.file("v2.jsonl"), R"({"format":"rdmatop.recording","version":2})"
                                    "\n");
  const auto newer = RecordingSet::open({files[1], tmp.file("v2.jsonl")});
  REQUIRE_FALSE(newer.ok());
  CHECK(newer.error().message == tmp.file("v2.jsonl") +
                                     ":1: recording format version 2 is newer than this rdmatop "
                                     "supports (1)");
}

TEST_CASE("Damage in a rotated file stops the timeline there", "[recording][set]") {
  const test::TempDir tmp;
  const auto files = record_rotated(small_run(9), tmp.file("rec.jsonl"), false, 5, 3);
  REQUIRE(files.size() == 3);
  // rec.jsonl.1 (seq 4-6) cut in its last line: 4 and 5 are used, then the error.
  const std::string bytes = test::read_file(files[1]);
  write_bytes(files[1], bytes.substr(0, bytes.size() - 10));
  const SetReadBack back = read_set(files);
  CHECK(seqs_of(back.snapshots) == seq_range(1, 5));
  REQUIRE(back.error.has_value());
  CHECK(back.error->message == files[1] + ":4: truncated: the last line ends without a newline");

  // A file holding only its header (a crash right after a rotation) adds nothing.
  const auto clean = record_rotated(small_run(9), tmp.file("b.jsonl"), false, 5, 3);
  const std::string header_only = tmp.file("b.jsonl.header");
  const std::string first = test::read_file(clean[0]);
  write_bytes(header_only, first.substr(0, first.find('\n') + 1));
  const SetReadBack with_empty = read_set({header_only, clean[0], clean[1], clean[2]});
  CHECK_FALSE(with_empty.error.has_value());
  CHECK(seqs_of(with_empty.snapshots) == seq_range(1, 9));
  CHECK(with_empty.files.back() == header_only);
}

TEST_CASE("A simulated storm recorded with rotation replays like one file", "[recording][set]") {
  // 20 ticks of the pfc-storm scenario through the real collectors: the storm alerts fire from
  // tick 13 on, so the findings compared below are not empty.
  auto scenario = sim::load_scenario("pfc-storm");
  REQUIRE(scenario.ok());
  auto simulator = sim::Simulator::create(std::move(scenario).value());
  REQUIRE(simulator.ok());
  const SnapshotProvider provider = sim::simulator_provider(*simulator.value());
  std::vector<Snapshot> live;
  for (std::uint64_t seq = 1; seq <= 20; ++seq) {
    auto s = provider(seq);
    REQUIRE(s.has_value());
    live.push_back(std::move(*s));
  }
  const test::TempDir tmp;
  const auto files = record_rotated(live, tmp.file("storm.jsonl.gz"), true, 100, 3);
  REQUIRE(files.size() == 7);
  record(live, {tmp.file("single.jsonl.gz"), true, 0, 0, 5.0});
  auto set = RecordingSet::open(files);
  REQUIRE(set.ok());
  const auto rotated_reports = monitor_run(recording_provider(std::move(set).value()));
  const auto single_reports =
      monitor_run(recording_provider(open_shared(tmp.file("single.jsonl.gz"))));
  REQUIRE(rotated_reports.size() == 20);
  CHECK(rotated_reports == single_reports);
  CHECK(rotated_reports.back().find("RdmaPfcStormWatchdogTriggered") != std::string::npos);
  // And the replay gives what the live run gave.
  CHECK(monitor_run(vector_provider(live)) == rotated_reports);
}
