// Runs the built binary on each fixture host and compares text and JSON reports with the
// golden files. Volatile fields (host name, time, durations, measured interval) are masked.
#include <sys/wait.h>

#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "tests/support/run_binary.h"

namespace fs = std::filesystem;

namespace {

using Run = rdmatop::test::BinaryRun;

std::string host_args(const std::string& host) {
  const std::string dir = "tests/fixtures/hosts/" + host;
  return "--sysfs-root " + dir + "/sys --ethtool-dir " + dir + "/ethtool";
}

std::string mask_json(const std::string& text) {
  auto doc = nlohmann::ordered_json::parse(text);
  doc["host"] = "HOST";
  doc["generated_at"] = "TIME";
  doc["rdmatop_version"] = "VERSION";
  for (auto& source : doc["sources"]) source["duration_seconds"] = 0;
  for (auto& finding : doc["findings"]) {
    for (const char* key : {"active_since", "fired_at", "resolved_at"}) {
      if (!finding[key].is_null()) finding[key] = "TIME";
    }
  }
  return doc.dump(2) + "\n";
}

std::string mask_text(const std::string& text) {
  // The first line carries version, host, time and the measured interval.
  const auto eol = text.find('\n');
  return "HEADER" + (eol == std::string::npos ? std::string() : text.substr(eol));
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void compare_golden(const std::string& actual, const std::string& name) {
  const fs::path golden = fs::path(RDMATOP_SOURCE_DIR) / "tests/e2e/golden" / name;
  const char* update = std::getenv("RDMATOP_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(golden) << actual;
    WARN("updated golden file " << golden.string());
    return;
  }
  REQUIRE(fs::exists(golden));
  const std::string expected = read_file(golden);
  if (expected != actual) {
    const fs::path actual_path = fs::temp_directory_path() / (name + ".actual");
    std::ofstream(actual_path) << actual;
    FAIL("output differs from " << golden.string() << "; actual written to " << actual_path.string()
                                << " (diff -u them; set "
                                << "RDMATOP_UPDATE_GOLDEN=1 to accept)");
  }
}

const char* const kHosts[] = {"mlx5", "bnxt", "irdma", "rxe", "degraded"};

}  // namespace

TEST_CASE("report --json on each fixture host matches its golden file", "[e2e]") {
  for (const char* host : kHosts) {
    SECTION(host) {
      // Healthy hosts: the mlx5 host's second port is DOWN with no link and no address (module
      // unplugged), which RdmaPortNotActive reports at info only.
      const Run r = rdmatop::test::run_rdmatop("report --json --interval 0 " + host_args(host));
      CHECK(r.exit_code == 0);
      compare_golden(mask_json(r.out), std::string(host) + ".json");
    }
  }
}

TEST_CASE("text report with rates on each fixture host matches its golden file", "[e2e]") {
  for (const char* host : kHosts) {
    SECTION(host) {
      // A static tree: every rate is a measured 0, which exercises the ok path end to end.
      const Run r = rdmatop::test::run_rdmatop("report --interval 0.05 " + host_args(host));
      CHECK(r.exit_code == 0);
      compare_golden(mask_text(r.out), std::string(host) + ".txt");
    }
  }
}

TEST_CASE("report exit codes for missing data and bad usage", "[e2e]") {
  const Run missing =
      rdmatop::test::run_rdmatop("report --interval 0 --sysfs-root /nonexistent-rdmatop-root");
  CHECK(missing.exit_code == 4);
  CHECK(missing.out.find("no RDMA ports found") != std::string::npos);
  CHECK(rdmatop::test::run_rdmatop("report --interval -1").exit_code == 3);
  CHECK(rdmatop::test::run_rdmatop("report --no-such-flag").exit_code == 3);
  const Run json = rdmatop::test::run_rdmatop(
      "report --json --interval 0 --sysfs-root /nonexistent-rdmatop-root");
  CHECK(json.exit_code == 4);
  const auto doc = nlohmann::json::parse(json.out);
  CHECK(doc["devices"].empty());
  CHECK_FALSE(doc["sources"].empty());
}
