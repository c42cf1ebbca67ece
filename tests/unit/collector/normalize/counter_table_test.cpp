#include <catch2/catch.hpp>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "collector/normalize/counter_table.h"
#include "collector/normalize/driver_family.h"
#include "collector/normalize/metric_catalogue.h"

using rdmatop::Combine;
using rdmatop::CounterRow;
using rdmatop::DriverFamily;
using rdmatop::MetricInfo;
using rdmatop::MetricKind;
using rdmatop::MetricScope;

namespace {

std::string read_metrics_doc() {
  const std::string path = std::string(RDMATOP_SOURCE_DIR) + "/docs/metrics.md";
  std::ifstream in(path);
  INFO("reading " << path);
  REQUIRE(in.good());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::set<std::string> split_labels(std::string_view list) {
  std::set<std::string> out;
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    out.emplace(list.substr(0, comma));
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return out;
}

}  // namespace

TEST_CASE("every row feeds a known counter with exactly its declared labels", "[counter_table]") {
  REQUIRE_FALSE(rdmatop::counter_rows().empty());
  for (const CounterRow& row : rdmatop::counter_rows()) {
    INFO(row.series << " <- " << row.raw);
    const MetricInfo* metric = rdmatop::find_metric(row.series);
    REQUIRE(metric != nullptr);
    CHECK(metric->kind == MetricKind::counter);
    CHECK(metric->scope == MetricScope::port);
    std::set<std::string> labels;
    if (!row.label.name.empty()) labels.emplace(row.label.name);
    if (const rdmatop::Placeholder* p = rdmatop::placeholder_of(row.raw)) {
      labels.emplace(p->label);
    }
    CHECK(labels == split_labels(metric->labels));
    CHECK(row.scale > 0);
  }
}

TEST_CASE("a summed row continues an alternative of its own group", "[counter_table]") {
  const auto rows = rdmatop::counter_rows();
  std::size_t sums = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].combine != Combine::sum_with_previous) continue;
    ++sums;
    INFO(rows[i].series << " <- " << rows[i].raw);
    REQUIRE(i > 0);
    CHECK(rows[i - 1].series == rows[i].series);
    CHECK(rows[i - 1].label.value == rows[i].label.value);
    CHECK(rows[i - 1].driver == rows[i].driver);
    CHECK(rows[i - 1].width_bits == rows[i].width_bits);
  }
  CHECK(sums > 0);
}

TEST_CASE("port metric labels are the documented label vocabulary", "[counter_table]") {
  // docs/metrics.md "Labels", plus the DCB and bound QP counter labels of "Host configuration
  // series".
  const std::set<std::string> vocabulary = {"direction",  "priority",   "level",   "side",
                                            "event",      "lane",       "counter", "dscp",
                                            "counter_id", "hw_counter", "pid",     "comm"};
  for (const MetricInfo& m : rdmatop::metric_catalogue()) {
    if (m.scope != MetricScope::port) continue;
    for (const std::string& label : split_labels(m.labels)) {
      INFO(m.name << " label " << label);
      CHECK(vocabulary.count(label) == 1);
    }
  }
}

// The series themselves are checked against the catalogue's documentation by
// metric_catalogue_test; the raw names are the table's own.
TEST_CASE("docs/metrics.md documents every raw name", "[counter_table]") {
  const std::string doc = read_metrics_doc();
  for (const CounterRow& row : rdmatop::counter_rows()) {
    INFO("raw " << row.raw << " for " << row.series);
    CHECK(doc.find("`" + std::string(row.raw) + "`") != std::string::npos);
  }
}

TEST_CASE("priority placeholder expansion", "[counter_table]") {
  CHECK(rdmatop::has_priority_placeholder("rx_prio{p}_pause"));
  CHECK_FALSE(rdmatop::has_priority_placeholder("rx_prio3_pause"));
  CHECK(rdmatop::expand_raw_name("rx_prio{p}_pause", 3) == "rx_prio3_pause");
  CHECK(rdmatop::expand_raw_name("pfc_pri{p}_rx_duration_us", 7) == "pfc_pri7_rx_duration_us");
  CHECK(rdmatop::expand_raw_name("rx_priority_{p}_xoff.nic", 0) == "rx_priority_0_xoff.nic");
  CHECK(rdmatop::expand_raw_name("RNR received", 4) == "RNR received");
}

TEST_CASE("lane placeholder expansion", "[counter_table]") {
  const rdmatop::Placeholder* lane = rdmatop::placeholder_of("rx_err_lane_{l}_phy");
  REQUIRE(lane != nullptr);
  CHECK(lane->label == "lane");
  CHECK(lane->count == 4);
  CHECK(rdmatop::placeholder_of("rx_prio{p}_pause")->label == "priority");
  CHECK(rdmatop::placeholder_of("rx_err_lane_0_phy") == nullptr);
  CHECK_FALSE(rdmatop::has_priority_placeholder("rx_err_lane_{l}_phy"));
  CHECK(rdmatop::expand_raw_name("rx_err_lane_{l}_phy", 3) == "rx_err_lane_3_phy");
}

TEST_CASE("wrap modulus is 2^width in canonical units", "[counter_table]") {
  CounterRow row{};
  CHECK(rdmatop::wrap_modulus(row) == 0);
  row.width_bits = 32;
  CHECK(rdmatop::wrap_modulus(row) == 4294967296.0);
  row.scale = 4;
  CHECK(rdmatop::wrap_modulus(row) == 17179869184.0);
  row.width_bits = 0;
  CHECK(rdmatop::wrap_modulus(row) == 0);
}

TEST_CASE("widths in the table: mlx5 Q-counters are 32-bit, PMA counters never wrap",
          "[counter_table]") {
  bool saw_q_counter = false;
  for (const CounterRow& row : rdmatop::counter_rows()) {
    INFO(row.series << " <- " << row.raw);
    if (row.source == rdmatop::RawSource::pma_counters) CHECK(row.width_bits == 0);
    if (row.driver == DriverFamily::mlx5 && row.raw == "local_ack_timeout_err") {
      saw_q_counter = true;
      CHECK(row.width_bits == 32);
    }
    if (row.raw == "link_down_events_phy" || row.raw == "rx_out_of_buffer") {
      if (row.driver == DriverFamily::mlx5) CHECK(row.width_bits == 32);
    }
    if (row.raw == "np_cnp_sent") CHECK(row.width_bits == 0);  // 64-bit congestion counter
  }
  CHECK(saw_q_counter);
}

TEST_CASE("driver family mapping", "[counter_table]") {
  using rdmatop::driver_families;
  using rdmatop::DriverInfo;
  using rdmatop::NetdevSample;
  const auto rdma = [](std::string_view driver) { return driver_families(driver, nullptr).rdma; };
  CHECK(rdma("mlx5") == DriverFamily::mlx5);
  CHECK(rdma("bnxt_re") == DriverFamily::bnxt_re);
  CHECK(rdma("irdma") == DriverFamily::irdma);
  CHECK(rdma("rxe") == DriverFamily::rxe);
  CHECK(rdma("") == DriverFamily::any);
  CHECK(rdma("siw") == DriverFamily::any);
  NetdevSample netdev;
  const auto with_netdev = [&](std::string_view rdma_driver, std::string ethernet) {
    netdev.driver = DriverInfo{};
    netdev.driver->driver = std::move(ethernet);
    return driver_families(rdma_driver, &netdev);
  };
  // The RDMA driver names both families; an unnamed one takes the netdev's driver for both.
  CHECK(with_netdev("bnxt_re", "mlx5_core").rdma == DriverFamily::bnxt_re);
  CHECK(with_netdev("bnxt_re", "mlx5_core").netdev == DriverFamily::bnxt_re);
  CHECK(with_netdev("", "mlx5_core").rdma == DriverFamily::mlx5);
  CHECK(with_netdev("", "bnxt_en").netdev == DriverFamily::bnxt_re);
  CHECK(with_netdev("", "ice").rdma == DriverFamily::irdma);
  CHECK(with_netdev("", "virtio_net").rdma == DriverFamily::any);
  // A named driver the table does not map stays unmapped for the device's own rows; its
  // netdev's rows follow the Ethernet driver.
  CHECK(with_netdev("siw", "mlx5_core").rdma == DriverFamily::any);
  CHECK(with_netdev("siw", "mlx5_core").netdev == DriverFamily::mlx5);
  netdev.driver.reset();
  CHECK(driver_families("", &netdev).netdev == DriverFamily::any);
  CHECK(std::string(to_string(DriverFamily::bnxt_re)) == "bnxt_re");
  CHECK(std::string(to_string(rdmatop::RawSource::pma_counters)) == "counters");
  CHECK(std::string(to_string(Combine::sum_with_previous)) == "sum_with_previous");
}
