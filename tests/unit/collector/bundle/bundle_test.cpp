// rdmatop capture's pieces (docs/capture.md "rdmatop capture"): the command runner (time
// limit, output cap, missing and failing tools, no caller environment), the manifest, the
// .tar.gz read back through report --capture's reader, and a whole capture holding no
// environment variable's value.
#include <stdlib.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <string>

#include "collector/bundle/bundle.h"
#include "collector/bundle/capture_plan.h"
#include "collector/capture/capture_host.h"
#include "collector/capture/capture_reader.h"
#include "tests/support/run_binary.h"
#include "tests/support/temp_dir.h"

using namespace rdmatop;
using namespace rdmatop::bundle;

namespace {

CommandLimits quick_limits() {
  CommandLimits limits;
  limits.timeout = std::chrono::milliseconds(3000);
  limits.max_output_bytes = 1U << 16U;
  return limits;
}

}  // namespace

TEST_CASE("runner: a command's stdout and exit status", "[bundle]") {
  const CommandResult r = run_command({"printf", "a\\nb\\n"}, quick_limits());
  CHECK(r.started);
  CHECK(r.ok());
  CHECK(r.output == "a\nb\n");
  CHECK(r.exit_status == 0);
  CHECK_FALSE(r.truncated);
  CHECK(r.error.empty());
}

TEST_CASE("runner: a failing tool has its exit status and its stderr as the reason", "[bundle]") {
  const CommandResult r = run_command({"ls", "/nonexistent-rdmatop-test-path"}, quick_limits());
  CHECK(r.started);
  CHECK_FALSE(r.ok());
  CHECK(r.exit_status != 0);
  CHECK(r.error.find("exit status " + std::to_string(r.exit_status)) == 0);
  CHECK(r.error.find("nonexistent-rdmatop-test-path") != std::string::npos);
  CHECK(r.stderr_text.find("nonexistent-rdmatop-test-path") != std::string::npos);
}

TEST_CASE("runner: a missing tool is 'not installed' and nothing is started", "[bundle]") {
  const CommandResult r = run_command({"rdmatop-no-such-tool-xyz", "-v"}, quick_limits());
  CHECK_FALSE(r.started);
  CHECK(r.error == "not installed");
  CHECK(find_program("rdmatop-no-such-tool-xyz").empty());
  CHECK_FALSE(find_program("sh").empty());
}

TEST_CASE("runner: the time limit kills the command and its children", "[bundle]") {
  CommandLimits limits = quick_limits();
  limits.timeout = std::chrono::milliseconds(300);
  const auto start = std::chrono::steady_clock::now();
  // The shell's child sleep holds the pipe open: the whole process group must go.
  const CommandResult r = run_command({"sh", "-c", "echo started; sleep 30; echo late"}, limits);
  const auto took = std::chrono::steady_clock::now() - start;
  CHECK(r.timed_out);
  CHECK_FALSE(r.ok());
  CHECK(r.output == "started\n");
  CHECK(r.error == "timeout after 300 ms");
  CHECK(took < std::chrono::seconds(5));
  CHECK(r.seconds >= 0.29);
}

TEST_CASE("runner: a command that closes its output but keeps running still times out",
          "[bundle]") {
  CommandLimits limits = quick_limits();
  limits.timeout = std::chrono::milliseconds(300);
  const CommandResult r = run_command({"sh", "-c", "exec >/dev/null 2>&1; sleep 30"}, limits);
  CHECK(r.timed_out);
}

TEST_CASE("runner: the output cap keeps exactly the cap and stops the command", "[bundle]") {
  CommandLimits limits = quick_limits();
  limits.max_output_bytes = 10000;
  const auto start = std::chrono::steady_clock::now();
  const CommandResult r = run_command({"yes"}, limits);  // endless "y\n"
  CHECK(r.truncated);
  CHECK_FALSE(r.timed_out);
  CHECK(r.output.size() == 10000);
  CHECK(r.output.substr(0, 4) == "y\ny\n");
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(3));
  // Just under the cap is kept whole and not truncated.
  const CommandResult head = run_command({"sh", "-c", "yes | head -c 9999"}, limits);
  CHECK_FALSE(head.truncated);
  CHECK(head.output.size() == 9999);
  CHECK(head.ok());
}

TEST_CASE("runner: the command sees a fixed PATH and none of the caller's variables", "[bundle]") {
  REQUIRE(::setenv("RDMATOP_BUNDLE_TEST_MARKER", "marker-value-7f3a", 1) == 0);
  const CommandResult r = run_command({"env"}, quick_limits());
  ::unsetenv("RDMATOP_BUNDLE_TEST_MARKER");
  REQUIRE(r.ok());
  CHECK(r.output.find("marker-value-7f3a") == std::string::npos);
  CHECK(r.output == std::string("PATH=") + kCommandPath + "\nLC_ALL=C\n");
}

TEST_CASE("plan: file names and grep's format", "[bundle]") {
  CHECK(bundle_file_name({"ethtool", "-S", "eth0"}) == "ethtool-S-eth0");
  CHECK(bundle_file_name({"ethtool", "--get-tunable", "a/b c"}) == "ethtool-get-tunable-a_b_c");
  const test::TempDir dir;
  dir.write("one", "1\n");
  dir.write("two", "2\n3");
  CHECK(grep_all_lines({dir.file("one")}) == "1\n");
  CHECK(grep_all_lines({dir.file("one"), dir.file("missing"), dir.file("two")}) ==
        dir.file("one") + ":1\n" + dir.file("two") + ":2\n" + dir.file("two") + ":3\n");
  // GNU grep prints the same for the files it can read.
  if (!find_program("grep").empty()) {
    const CommandResult g =
        run_command({"grep", "", dir.file("one"), dir.file("two")}, quick_limits());
    CHECK(g.output == grep_all_lines({dir.file("one"), dir.file("two")}));
  }
}

TEST_CASE("manifest: what was run, how it ended, what failed and why", "[bundle]") {
  ManifestHost host{
      "h1", "6.1.0", "x86_64", "2026-12-01T00:00:00Z", "0.1.0 (abc)", {"rdmatop", "capture"}, 1.5};
  std::vector<BundleEntry> entries(3);
  entries[0].path = "commands/env.txt";
  entries[0].command = run_command({"printf", "xy"}, quick_limits());
  entries[0].bytes = entries[0].command->output;
  entries[1].path = "commands/missing.txt";
  entries[1].command = run_command({"rdmatop-no-such-tool-xyz"}, quick_limits());
  entries[1].error = entries[1].command->error;
  entries[2].path = "commands/own.txt";
  entries[2].bytes = "abc\n";
  entries[2].fallback = "rdmatop's own read";
  const auto m = make_manifest(host, entries);
  CHECK(m["format"] == kManifestFormat);
  CHECK(m["host"] == "h1");
  CHECK(m["kernel"] == "6.1.0");
  CHECK(m["rdmatop_argv"] == nlohmann::json::array({"rdmatop", "capture"}));
  REQUIRE(m["files"].size() == 3);
  CHECK(m["files"][0]["argv"] == nlohmann::json::array({"printf", "xy"}));
  CHECK(m["files"][0]["exit_status"] == 0);
  CHECK(m["files"][0]["bytes"] == 2);
  CHECK(m["files"][0]["written"] == true);
  CHECK(m["files"][1]["written"] == false);
  CHECK(m["files"][1]["error"] == "not installed");
  CHECK(m["files"][1]["exit_status"].is_null());
  CHECK(m["files"][2]["fallback"] == "rdmatop's own read");
  CHECK_FALSE(m["files"][2].contains("argv"));
}

TEST_CASE("archive: the bundle reads back through report --capture's reader", "[bundle]") {
  const test::TempDir dir;
  // A real paste (tests/fixtures/real/3fs-263-rxe: deepseek-ai/3FS#263), as a command file.
  std::vector<BundleEntry> entries(2);
  entries[0].path = "commands/rdma-link.txt";
  entries[0].bytes = "link rxe_0/1 state ACTIVE physical_state LINK_UP netdev p1p1\n";
  entries[1].path = "commands/failed.txt";
  entries[1].error = "not installed";
  ManifestHost host{"h1", "6.1.0", "x86_64", "t", "v", {"rdmatop", "capture"}, 0};
  const auto manifest = make_manifest(host, entries);
  const std::string path = dir.file("b.tar.gz");
  const auto written = write_bundle(path, "top", entries, manifest, 1700000000);
  REQUIRE(written.ok());
  const auto inputs = capture::read_capture_inputs({path});
  REQUIRE(inputs.size() == 2);  // the failed command has no file
  CHECK(inputs[0].name == path + ":top/commands/rdma-link.txt");
  CHECK(inputs[0].text == entries[0].bytes);
  CHECK(inputs[1].name == path + ":top/manifest.json");
  CHECK(nlohmann::json::parse(inputs[1].text) == nlohmann::json(manifest));
  const capture::CaptureSet set = capture::assemble(inputs);
  REQUIRE(set.files.size() == 2);
  CHECK(set.files[0].formats == std::vector<std::string>{"rdma link"});
  CHECK(set.files[1].formats == std::vector<std::string>{"rdmatop capture manifest"});
  REQUIRE(set.captures.size() == 1);
}

TEST_CASE("archive: a bundle read back knows each netdev's driver from its manifest", "[bundle]") {
  // `ethtool -i` prints no interface name ("driver: mlx5_core"): with two netdevs only the
  // manifest's argv says whose each file is. The outputs are real pastes: ethtool -i of
  // isc-projects/ethq#8 and the bnxt_re ports of openucx/ucx#11048 (rdma link).
  const test::TempDir dir;
  const auto command_entry = [](std::string path, std::vector<std::string> argv,
                                std::string bytes) {
    BundleEntry e;
    e.path = std::move(path);
    CommandResult c;
    c.argv = std::move(argv);
    c.started = true;
    c.exit_status = 0;
    c.output = bytes;
    e.command = c;
    e.bytes = std::move(bytes);
    return e;
  };
  std::vector<BundleEntry> entries;
  entries.push_back(command_entry("commands/rdma-link.txt", {"rdma", "link"},
                                  "link mlx5_0/1 state ACTIVE physical_state LINK_UP netdev p3p1\n"
                                  "link bnxt_re0/1 state ACTIVE physical_state LINK_UP netdev "
                                  "enp194s0f0np0\n"));
  entries.push_back(command_entry("commands/ethtool-i-p3p1.txt", {"ethtool", "-i", "p3p1"},
                                  "driver: mlx5_core\nversion: 5.0-0\n"
                                  "firmware-version: 14.23.1020 (MT_2420110034)\n"
                                  "bus-info: 0000:af:00.0\n"));
  entries.push_back(command_entry("commands/ethtool-i-enp194s0f0np0.txt",
                                  {"ethtool", "-i", "enp194s0f0np0"},
                                  "driver: bnxt_en\nbus-info: 0000:c2:00.0\n"));
  ManifestHost host{"h1", "6.1.0", "x86_64", "t", "v", {"rdmatop", "capture"}, 0};
  const std::string path = dir.file("b.tar.gz");
  REQUIRE(write_bundle(path, "top", entries, make_manifest(host, entries), 1700000000).ok());
  const capture::CaptureSet set = capture::assemble(capture::read_capture_inputs({path}));
  REQUIRE(set.captures.size() == 1);
  const Snapshot snap = capture::build_snapshot(set.captures[0], set.files, set.host, 1);
  REQUIRE(snap.netdevs.size() == 2);
  for (const NetdevSample& nd : snap.netdevs) {
    REQUIRE(nd.driver.has_value());
    CHECK(nd.driver->driver == (nd.name == "p3p1" ? "mlx5_core" : "bnxt_en"));
  }
  // Without the manifest the same files name no interface, and two netdevs are known: no
  // driver is guessed.
  const auto inputs = capture::read_capture_inputs({path});
  std::vector<capture::CaptureInput> bare;
  for (const auto& input : inputs) {
    if (!input.name.ends_with("manifest.json")) bare.push_back(input);
  }
  const capture::CaptureSet unnamed = capture::assemble(bare);
  REQUIRE(unnamed.captures.size() == 1);
  for (const auto& [name, net] : unnamed.captures[0].netdevs) CHECK_FALSE(net.driver.has_value());
}

TEST_CASE("archive: an unwritable path is an error, not a crash", "[bundle]") {
  const auto written =
      write_bundle("/nonexistent-dir-rdmatop/b.tar.gz", "top", {}, make_manifest({}, {}), 0);
  CHECK_FALSE(written.ok());
}

TEST_CASE("capture: the bundle holds no environment variable's value", "[bundle]") {
  const test::TempDir dir;
  const std::string bundle = dir.file("b.tar.gz");
  const auto run = test::run_binary("RDMATOP_SECRET_MARKER=zz-secret-9c1e HOME=/zz-home-9c1e '" +
                                    std::string(RDMATOP_BINARY) + "' capture -o '" + bundle +
                                    "' --seconds 0.2 --interval 0.1 2>/dev/null");
  REQUIRE(run.exit_code == 0);
  const auto inputs = capture::read_capture_inputs({bundle});
  REQUIRE(inputs.size() >= 3);  // ip -s link or /proc/interrupts, the recording, the manifest
  bool has_manifest = false;
  bool has_recording = false;
  for (const auto& input : inputs) {
    CHECK(input.error.empty());
    CHECK(input.text.find("zz-secret-9c1e") == std::string::npos);
    CHECK(input.text.find("zz-home-9c1e") == std::string::npos);
    has_manifest |= input.name.ends_with("/manifest.json");
    has_recording |= input.name.ends_with("/recording.jsonl");
  }
  CHECK(has_manifest);
  CHECK(has_recording);
  // The raw archive too (names, headers), uncompressed.
  const auto raw = test::run_binary("gzip -dc '" + bundle + "' | grep -c -a zz-secret-9c1e");
  CHECK(raw.out == "0\n");
}
