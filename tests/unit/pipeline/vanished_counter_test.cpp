// #22 item 5: a counter that vanishes mid-run. The mlx5 table maps rdma_cnp_sent_total to the
// port's hw_counters/np_cnp_sent and, failing that, to the device-level one; when the port's
// file goes, the series silently switched counters and its rate was the difference of two
// unrelated counters. Now the change of origin is a reset, and every disappearance (one file,
// a hw_counters/ directory, a port directory, the class link) leaves a status.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "collector/collect.h"
#include "collector/source/ethtool_source.h"
#include "collector/source/file_source.h"
#include "collector/vanished_tracker.h"
#include "pipeline/monitor.h"
#include "rules/history.h"
#include "tests/support/temp_dir.h"

namespace rdmatop {
namespace {

namespace fs = std::filesystem;

const fs::path kFixture = fs::path(RDMATOP_SOURCE_DIR) / "tests/fixtures/hosts/mlx5";
constexpr const char* kDevice0 = "devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/infiniband/mlx5_0";

/// A writable copy of the mlx5 fixture host, read through the live collectors.
class LiveCopy {
 public:
  LiveCopy() {
    fs::copy(kFixture / "sys", sys(),
             fs::copy_options::recursive | fs::copy_options::copy_symlinks);
    sysfs_ = make_directory_file_source(sys().string());
    ethtool_ = make_dump_ethtool_source((kFixture / "ethtool").string());
    ctx_ = std::make_unique<CollectContext>(CollectContext{*sysfs_, *ethtool_, {}});
    monitor_ = std::make_unique<Monitor>(live_provider(*ctx_), std::vector<RuleGroup>{});
  }
  fs::path sys() const { return fs::path(dir_.path()) / "sys"; }
  void write(const fs::path& rel, const std::string& text) const {
    std::ofstream(sys() / rel, std::ios::trunc) << text;
  }
  std::shared_ptr<const PublishedTick> step() { return monitor_->step(); }

 private:
  test::TempDir dir_;
  std::unique_ptr<FileSource> sysfs_;
  std::unique_ptr<EthtoolSource> ethtool_;
  std::unique_ptr<CollectContext> ctx_;
  std::unique_ptr<Monitor> monitor_;
};

const SourceStatus* inventory_status(const PublishedTick& report, const std::string& target) {
  for (const SourceStatus& s : report.snapshot.sources) {
    if (s.source == kInventorySource && s.target == target) return &s;
  }
  return nullptr;
}

const SeriesWithRate* cnp_sent(const PublishedTick& report, const std::string& device) {
  for (const TickPort& port : report.ports) {
    for (const SeriesWithRate& s : port.series) {
      if (s.series.name == "rdma_cnp_sent_total" &&
          label_value(s.series.labels, "device") == device)
        return &s;
    }
  }
  return nullptr;
}

TEST_CASE("a port counter replaced by the device-level one is a reset, not a rate",
          "[vanished][report]") {
  LiveCopy host;
  const fs::path port_file = fs::path(kDevice0) / "ports/1/hw_counters/np_cnp_sent";
  host.write(port_file, "100\n");
  // The fixture has no device-scope hw_counters/ (mlx5 outside switchdev mode has none): the
  // directory the fallback reads is made here.
  fs::create_directories(host.sys() / kDevice0 / "hw_counters");
  host.write(fs::path(kDevice0) / "hw_counters/np_cnp_sent", "250100\n");
  const auto first = host.step();
  REQUIRE(first != nullptr);
  REQUIRE(cnp_sent(*first, "mlx5_0") != nullptr);
  CHECK(cnp_sent(*first, "mlx5_0")->series.origin == "hw_counters/np_cnp_sent");
  CHECK(inventory_status(*first, "mlx5_0/1") == nullptr);

  fs::remove(host.sys() / port_file);
  const auto second = host.step();
  const SeriesWithRate* switched = cnp_sent(*second, "mlx5_0");
  REQUIRE(switched != nullptr);
  CHECK(switched->series.origin == "device_hw_counters/np_cnp_sent");
  CHECK(switched->rate.state == RateState::reset);
  CHECK(switched->rate.per_second == 0);
  const SourceStatus* status = inventory_status(*second, "mlx5_0/1");
  REQUIRE(status != nullptr);
  CHECK(status->state == SourceState::error);
  CHECK_THAT(status->message, Catch::Contains("missing now: hw_counters/np_cnp_sent"));

  // Renewed while it stays away, gone once it is back.
  CHECK(inventory_status(*host.step(), "mlx5_0/1") != nullptr);
  host.write(port_file, "200\n");
  CHECK(inventory_status(*host.step(), "mlx5_0/1") == nullptr);
}

TEST_CASE("a vanished hw_counters directory, port directory or class link leaves a status",
          "[vanished][report]") {
  struct Case {
    const char* what;
    fs::path removed;
    std::string target;
    std::string missing;
  };
  const Case cases[] = {
      {"hw_counters/", fs::path(kDevice0) / "ports/1/hw_counters", "mlx5_0/1", "hw_counters/"},
      {"port directory", fs::path(kDevice0) / "ports/1", "mlx5_0", "ports/1"},
      {"class link", "class/infiniband/mlx5_0", "", "class/infiniband/mlx5_0"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    LiveCopy host;
    REQUIRE(host.step() != nullptr);
    fs::remove_all(host.sys() / c.removed);
    const auto report = host.step();
    const SourceStatus* status = inventory_status(*report, c.target);
    REQUIRE(status != nullptr);
    CHECK(status->state == SourceState::error);
    CHECK_THAT(status->message, Catch::Contains("missing now: " + c.missing));
  }
}

TEST_CASE("the rules' history restarts a counter whose origin changed", "[vanished][history]") {
  const auto cnp = [](double value, std::string origin) {
    Series s;
    s.name = "rdma_cnp_sent_total";
    s.labels = {{"device", "mlx5_0"}, {"port", "1"}};
    s.value = value;
    s.origin = std::move(origin);
    return s;
  };
  History history;
  history.ingest({cnp(100, "hw_counters/np_cnp_sent")}, 10'000);
  history.ingest({cnp(150, "hw_counters/np_cnp_sent")}, 20'000);
  history.ingest({cnp(250100, "device_hw_counters/np_cnp_sent")}, 30'000);
  const auto selected = history.select(
      {{promql::kMetricNameLabel, promql::MatchOp::equal, "rdma_cnp_sent_total", {}}});
  REQUIRE(selected.size() == 1);
  REQUIRE(selected[0]->points().size() == 1);  // only the new counter's sample
  CHECK(selected[0]->points().front().v == 250100);
}

}  // namespace
}  // namespace rdmatop
