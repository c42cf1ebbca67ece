// `rdmatop record` then `rdmatop report --from` with the real binary on fixture hosts.
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

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
  const std::string cmd = std::string("cd '") + RDMATOP_SOURCE_DIR + "' && { " + RDMATOP_BINARY +
                          " " + args + "; } 2>'" + err_file + "'";
  Run result;
  FILE* pipe = popen(cmd.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::array<char, 4096> buf{};
  std::size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) result.out.append(buf.data(), n);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.err = rdmatop::test::read_file(err_file);
  return result;
}

std::string host_args(const std::string& host) {
  const std::string dir = "tests/fixtures/hosts/" + host;
  return "--sysfs-root " + dir + "/sys --ethtool-dir " + dir + "/ethtool";
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
      run("record -o " + file + " " + host_args("mlx5") + " --interval 0.05 --duration 0.3s", tmp);
  REQUIRE(rec.exit_code == 0);

  // --at +0s: only the first snapshot, so no interval.
  const Run first = run("report --json --from " + file + " --at +0s", tmp);
  REQUIRE(first.exit_code == 0);
  CHECK(nlohmann::json::parse(first.out).at("interval_seconds").get<double>() == 0);
  const Run window = run("report --json --from " + file + " --window +0s..+0.06s", tmp);
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
  // Backgrounded, then terminated: the file must end on a complete line.
  const Run sig = run("record -o " + file + " " + host_args("rxe") +
                          " --interval 0.05 & pid=$!; sleep 0.5; kill -TERM $pid; wait $pid",
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
