// `rdmatop record` then `rdmatop report --from` with the real binary on fixture hosts.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/run_binary.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;

namespace {

struct Run {
  std::string out;  ///< stdout
  std::string err;  ///< stderr
  int exit_code = -1;
};

Run run(const std::string& args, const rdmatop::test::TempDir& tmp) {
  const std::string err_file = tmp.file("stderr.txt");
  // Braces, so a backgrounded `args & ...; wait` sends its stderr to the file too.
  const rdmatop::test::BinaryRun ran = rdmatop::test::run_binary(
      std::string("{ ") + RDMATOP_BINARY + " " + args + "; } 2>'" + err_file + "'");
  Run result;
  result.out = ran.out;
  result.exit_code = ran.exit_code;
  result.err = rdmatop::test::read_file(err_file);
  return result;
}

std::string host_args(const std::string& host) {
  const std::string dir = "tests/fixtures/hosts/" + host;
  return "--sysfs-root " + dir + "/sys --ethtool-dir " + dir + "/ethtool";
}

/// FILE, FILE.1, FILE.2 ... as `record --rotate` left them, newest first.
std::vector<std::string> rotated_files(const std::string& file) {
  std::vector<std::string> files{file};
  for (int k = 1; fs::exists(file + "." + std::to_string(k)); ++k) {
    files.push_back(file + "." + std::to_string(k));
  }
  return files;
}

/// The one-file recording of the same ticks, written to `out`: the rotated files' snapshot
/// lines, oldest first, under one header.
std::string as_one_file(const std::vector<std::string>& newest_first, const std::string& out) {
  std::string single;
  for (auto it = newest_first.rbegin(); it != newest_first.rend(); ++it) {
    const std::string bytes = rdmatop::test::read_file(*it);
    single += it == newest_first.rbegin() ? bytes : bytes.substr(bytes.find('\n') + 1);
  }
  std::ofstream(out, std::ios::binary) << single;
  return out;
}

}  // namespace

TEST_CASE("record then report --from on every fixture host", "[recording][e2e]") {
  const rdmatop::test::TempDir tmp;
  for (const char* host : {"mlx5", "bnxt", "irdma", "rxe", "degraded"}) {
    INFO(host);
    for (const bool gzip : {false, true}) {
      INFO("gzip " << gzip);
      const std::string file = tmp.file(std::string(host) + (gzip ? ".jsonl.gz" : ".jsonl"));
      const Run rec = run("record -o " + file + " " + host_args(host) +
                              " --interval 0.05 --duration 0.2s" + (gzip ? " --gzip" : ""),
                          tmp);
      REQUIRE(rec.exit_code == 0);
      CHECK(rec.err.find("snapshots written to " + file) != std::string::npos);

      // The live report of the same host is the reference for findings and exit code.
      const Run live = run("report --json --interval 0 " + host_args(host), tmp);
      const Run replay = run("report --json --from " + file, tmp);
      INFO(replay.err);
      CHECK(replay.exit_code == live.exit_code);
      const auto live_doc = nlohmann::json::parse(live.out);
      const auto doc = nlohmann::json::parse(replay.out);
      CHECK(doc.at("format") == "rdmatop.report");
      CHECK(doc.at("devices").size() == live_doc.at("devices").size());
      std::vector<std::string> live_rules, replay_rules;
      for (const auto& f : live_doc.at("findings")) live_rules.push_back(f.at("rule"));
      for (const auto& f : doc.at("findings")) replay_rules.push_back(f.at("rule"));
      CHECK(replay_rules == live_rules);
      // Several snapshots were replayed, so rates come from a real interval.
      CHECK(doc.at("interval_seconds").get<double>() > 0);

      const Run text = run("report --from " + file, tmp);
      CHECK(text.exit_code == live.exit_code);
      CHECK(text.out.find("INVENTORY") != std::string::npos);
    }
  }
}

TEST_CASE("report --from: --at, --window, damage and errors", "[recording][e2e]") {
  const rdmatop::test::TempDir tmp;
  const std::string file = tmp.file("rec.jsonl");
  const Run rec =
      run("record -o " + file + " " + host_args("mlx5") + " --interval 0.05 --duration 1s", tmp);
  REQUIRE(rec.exit_code == 0);

  // --at +0s: only the first snapshot, so no interval.
  const Run first = run("report --json --from " + file + " --at +0s", tmp);
  REQUIRE(first.exit_code == 0);
  CHECK(nlohmann::json::parse(first.out).at("interval_seconds").get<double>() == 0);
  // A window over the whole recording holds every snapshot (two at least: 1 s at 0.05 s).
  // Its end is far past the last one, so a slow machine that spaces the polls out still has
  // them all inside.
  const Run window = run("report --json --from " + file + " --window +0s..+1h", tmp);
  REQUIRE(window.exit_code == 0);
  CHECK(nlohmann::json::parse(window.out).at("interval_seconds").get<double>() > 0);
  const Run empty =
      run("report --from " + file + " --window 2000-01-01T00:00:00Z..2000-01-02T00:00:00Z", tmp);
  CHECK(empty.exit_code == 4);
  CHECK(empty.err.find("no snapshot in the requested time") != std::string::npos);
  CHECK(run("report --from " + file + " --at yesterday", tmp).exit_code == 3);
  CHECK(run("report --from " + file + " --at +1s --window ..+2s", tmp).exit_code == 3);
  CHECK(run("report --at +1s", tmp).exit_code == 3);

  // Cut in the middle of the last line: the good prefix is still reported, the error named.
  const std::string bytes = rdmatop::test::read_file(file);
  const std::string cut = tmp.file("cut.jsonl");
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() - 100);
  const Run damaged = run("report --json --from " + cut, tmp);
  CHECK(damaged.exit_code == 0);
  const auto lines = std::count(bytes.begin(), bytes.end(), '\n');
  CHECK(damaged.err.find(cut + ":" + std::to_string(lines) +
                         ": truncated: the last line ends without a newline") != std::string::npos);
  CHECK(nlohmann::json::parse(damaged.out).at("format") == "rdmatop.report");

  std::ofstream(tmp.file("v2.jsonl")) << R"({"format":"rdmatop.recording","version":2})"
                                      << "\n";
  const Run newer = run("report --from " + tmp.file("v2.jsonl"), tmp);
  CHECK(newer.exit_code == 4);
  CHECK(newer.err.find("recording format version 2 is newer than this rdmatop supports (1)") !=
        std::string::npos);
}

TEST_CASE("record stops cleanly on SIGTERM and at the size cap", "[recording][e2e]") {
  const rdmatop::test::TempDir tmp;
  const std::string file = tmp.file("sig.jsonl");
  // Backgrounded, then terminated: the file must end on a complete line. The signal goes only
  // once the file exists: record installs its handlers before it opens the file at the first
  // snapshot, and a fixed sleep lost that race to a slow start (ASan under CI load: exit 143).
  const Run sig = run("record -o " + file + " " + host_args("rxe") +
                          " --interval 0.05 & pid=$!; i=0; while [ ! -s " + file +
                          " ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done; sleep 0.2; "
                          "kill -TERM $pid; wait $pid",
                      tmp);
  CHECK(sig.exit_code == 0);
  CHECK(sig.err.find("(stopped by signal)") != std::string::npos);
  const std::string bytes = rdmatop::test::read_file(file);
  REQUIRE_FALSE(bytes.empty());
  CHECK(bytes.back() == '\n');
  CHECK(run("report --from " + file, tmp).err.find("truncated") == std::string::npos);

  const std::string capped = tmp.file("cap.jsonl");
  const Run cap = run(
      "record -o " + capped + " " + host_args("rxe") + " --interval 0.01 --max-bytes 20000", tmp);
  CHECK(cap.exit_code == 0);
  CHECK(cap.err.find("size cap reached") != std::string::npos);
  CHECK(fs::file_size(capped) <= 20000);
  CHECK(run("record -o x --rotate 2 " + host_args("rxe"), tmp).exit_code == 3);
}

TEST_CASE("the TUI replays a recording with --from", "[recording][e2e]") {
  const rdmatop::test::TempDir tmp;
  const std::string file = tmp.file("mlx5.jsonl");
  REQUIRE(
      run("record -o " + file + " " + host_args("mlx5") + " --interval 0.05 --duration 0.2s", tmp)
          .exit_code == 0);
  const Run tui = run("--from " + file + " --batch -n 2 --interval 0.1", tmp);
  INFO(tui.err);
  CHECK(tui.exit_code == 0);
  CHECK(tui.out.find("source: replay: " + file) != std::string::npos);
  CHECK(tui.out.find("[REPLAY]") != std::string::npos);
  CHECK(tui.out.find("mlx5_0/1") != std::string::npos);
  // The second frame has rates from two recorded snapshots, not "init" everywhere.
  const std::size_t second = tui.out.find("rdmatop ", 1);
  REQUIRE(second != std::string::npos);
  CHECK(tui.out.find("0 B/s", second) != std::string::npos);

  const Run missing = run("--from " + tmp.file("nope.jsonl") + " --batch", tmp);
  CHECK(missing.exit_code == 4);
  CHECK(missing.err.find("nope.jsonl") != std::string::npos);
}

TEST_CASE("a rotated recording replays whole with --from FILE*", "[recording][e2e]") {
  const rdmatop::test::TempDir tmp;
  const std::string file = tmp.file("rot.jsonl");
  // About two snapshots per file: every tick of the mlx5 host is ~11 kB of JSON.
  const Run rec = run("record -o " + file + " " + host_args("mlx5") +
                          " --interval 0.05 --duration 0.5s --max-bytes 25000 --rotate 50",
                      tmp);
  REQUIRE(rec.exit_code == 0);
  REQUIRE(fs::exists(file + ".2"));
  const std::vector<std::string> files = rotated_files(file);
  const std::string single_file = as_one_file(files, tmp.file("single.jsonl"));

  // Given as a shell glob (rot.jsonl, rot.jsonl.1, rot.jsonl.10, rot.jsonl.2 ...).
  const Run rotated = run("report --json --from " + file + "*", tmp);
  INFO(rotated.err);
  CHECK(rotated.err.empty());
  const Run one = run("report --json --from " + single_file, tmp);
  CHECK(rotated.exit_code == one.exit_code);
  CHECK(rotated.out == one.out);
  CHECK(nlohmann::json::parse(rotated.out).at("interval_seconds").get<double>() > 0);
  // --at counts from the recording start in every file.
  CHECK(run("report --json --from " + file + "* --at +0.1s", tmp).out ==
        run("report --json --from " + single_file + " --at +0.1s", tmp).out);

  // A file left out: the report covers the timeline up to the gap, and says so.
  const Run gap = run("report --json --from " + files.back() + " " + file, tmp);
  CHECK(gap.exit_code == one.exit_code);
  CHECK(gap.err.find(file + ":2: gap after " + files.back() + ": snapshots seq ") !=
        std::string::npos);
  // Another recording's file is refused before anything is replayed.
  const std::string other = tmp.file("other.jsonl");
  REQUIRE(
      run("record -o " + other + " " + host_args("mlx5") + " --interval 0.05 --duration 0.1s", tmp)
          .exit_code == 0);
  const Run mixed = run("report --from " + file + " " + other, tmp);
  CHECK(mixed.exit_code == 4);
  CHECK(mixed.err.find(other + ":1: not part of the same recording as " + file) !=
        std::string::npos);

  // The TUI takes the same set.
  const Run tui = run("--from " + file + "* --batch -n 2 --interval 0.1", tmp);
  INFO(tui.err);
  CHECK(tui.exit_code == 0);
  CHECK(tui.out.find("[REPLAY]") != std::string::npos);
  CHECK(tui.out.find("mlx5_0/1") != std::string::npos);
}

TEST_CASE("a simulated storm recorded with rotation replays like one file", "[recording][e2e]") {
  const rdmatop::test::TempDir tmp;
  const std::string file = tmp.file("storm.jsonl");
  // The whole pfc-storm timeline (96 simulated ticks), ~5 snapshots a file: ~20 files, more
  // than the replay keeps open at once.
  const Run rec =
      run("record --demo pfc-storm -o " + file + " --interval 0.01 --max-bytes 150000 --rotate 100",
          tmp);
  INFO(rec.err);
  REQUIRE(rec.exit_code == 0);
  CHECK(rec.err.find("(the demo scenario ended)") != std::string::npos);
  const std::vector<std::string> files = rotated_files(file);
  REQUIRE(files.size() > 16);
  const std::string single_file = as_one_file(files, tmp.file("single.jsonl"));

  const Run rotated = run("report --json --from " + file + "*", tmp);
  INFO(rotated.err);
  CHECK(rotated.err.empty());
  const Run one = run("report --json --from " + single_file, tmp);
  CHECK(rotated.exit_code == 2);  // critical: the storm watchdog fired
  CHECK(rotated.exit_code == one.exit_code);
  CHECK(rotated.out == one.out);
  const auto doc = nlohmann::json::parse(rotated.out);
  std::vector<std::string> rules;
  for (const auto& f : doc.at("findings")) rules.push_back(f.at("rule"));
  CHECK(std::find(rules.begin(), rules.end(), "RdmaPfcStormWatchdogTriggered") != rules.end());
  // At the storm's height too: --at counts simulated time from the recording start.
  CHECK(run("report --json --from " + file + "* --at +80s", tmp).out ==
        run("report --json --from " + single_file + " --at +80s", tmp).out);
  CHECK(run("record --demo no-such-scenario -o " + tmp.file("x.jsonl"), tmp).exit_code == 3);
}
