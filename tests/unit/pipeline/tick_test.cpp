#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "collector/collect.h"
#include "collector/source/ethtool_source.h"
#include "collector/source/file_source.h"
#include "exporters/report/report_render.h"
#include "pipeline/tick.h"

using namespace rdmatop;

namespace {

Snapshot rxe_snapshot(std::uint64_t sent, std::uint64_t rcvd, std::chrono::seconds at) {
  Snapshot snap;
  snap.hostname = "vm1";
  snap.taken = std::chrono::steady_clock::time_point(at);
  DeviceSample dev;
  dev.name = "rxe0";
  dev.driver = "rxe";
  PortSample port;
  port.port = 1;
  port.state = "ACTIVE";
  port.state_id = 4;
  port.netdev = "eth0";
  port.gid_table_read = true;
  port.gids = {{0, "fe80:0000:0000:0000:5054:00ff:fe12:3456", "RoCE v2", "eth0"},
               {1, "0000:0000:0000:0000:0000:ffff:0a0b:0c01", "RoCE v2", "eth0"}};
  port.hw_counters = {{"sent_pkts", sent}, {"rcvd_pkts", rcvd}};
  dev.ports.push_back(port);
  snap.devices.push_back(dev);
  snap.sources.push_back(SourceStatus{"sysfs", "rxe0", SourceState::ok, "", {}});
  snap.sources.push_back(SourceStatus{
      "ethtool", "eth0", SourceState::error, "ethtool GSTATS eth0: No such device", {}});
  return snap;
}

const SeriesWithRate* find(const TickPort& pr, const std::string& name,
                           const std::string& direction) {
  for (const auto& s : pr.series) {
    if (s.series.name == name && label_value(s.series.labels, "direction") == direction) return &s;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("build_tick computes per-port rates between two snapshots", "[report]") {
  const Observation first = make_observation(rxe_snapshot(1000, 500, std::chrono::seconds(10)));
  const PublishedTick report =
      build_tick(&first, make_observation(rxe_snapshot(6000, 400, std::chrono::seconds(15))));
  CHECK(report.interval_seconds == Approx(5.0));
  REQUIRE(report.ports.size() == 1);
  const TickPort& pr = report.ports[0];
  REQUIRE(pr.roce_v2_gid.has_value());
  CHECK(pr.roce_v2_gid->index == 1);

  const SeriesWithRate* tx = find(pr, "rdma_packets_total", "tx");
  REQUIRE(tx != nullptr);
  CHECK(tx->series.value == 6000);
  CHECK(tx->rate.state == RateState::ok);
  CHECK(tx->rate.per_second == Approx(1000.0));
  // rcvd_pkts went down: a reset, never a negative rate.
  const SeriesWithRate* rx = find(pr, "rdma_packets_total", "rx");
  REQUIRE(rx != nullptr);
  CHECK(rx->rate.state == RateState::reset);
  CHECK(report_exit_code(report) == ReportExit::healthy);
}

TEST_CASE("a single-snapshot report has init rates", "[report]") {
  const PublishedTick report =
      build_tick(nullptr, make_observation(rxe_snapshot(1, 2, std::chrono::seconds(1))));
  CHECK(report.interval_seconds == 0);
  REQUIRE(report.ports.size() == 1);
  REQUIRE_FALSE(report.ports[0].series.empty());
  for (const auto& s : report.ports[0].series) {
    if (s.series.kind == SeriesKind::counter) CHECK(s.rate.state == RateState::init);
  }
}

TEST_CASE("a report with no devices exits with no_data", "[report]") {
  Snapshot empty;
  empty.sources.push_back(SourceStatus{"sysfs", "", SourceState::no_data, "no RDMA devices", {}});
  const PublishedTick report = build_tick(nullptr, make_observation(empty));
  CHECK(report_exit_code(report) == ReportExit::no_data);
  CHECK(render_report_text(report).find("no RDMA ports found") != std::string::npos);
}

TEST_CASE("text report shows inventory, series and failing sources", "[report]") {
  const Observation first = make_observation(rxe_snapshot(1000, 500, std::chrono::seconds(10)));
  const std::string text = render_report_text(
      build_tick(&first, make_observation(rxe_snapshot(6000, 900, std::chrono::seconds(15)))));
  CHECK(text.find("rxe0/1") != std::string::npos);
  CHECK(text.find("[1] 10.11.12.1") != std::string::npos);
  CHECK(text.find("rdma_packets_total{direction=tx}") != std::string::npos);
  CHECK(text.find("1k/s") != std::string::npos);
  CHECK(text.find("ethtool GSTATS eth0: No such device") != std::string::npos);
  CHECK(text.find("1 ok, 0 no data, 1 errors") != std::string::npos);
}

TEST_CASE("JSON report is versioned and carries raw and canonical values", "[report]") {
  const Observation first = make_observation(rxe_snapshot(1000, 500, std::chrono::seconds(10)));
  const auto doc = nlohmann::json::parse(render_report_json(
      build_tick(&first, make_observation(rxe_snapshot(6000, 900, std::chrono::seconds(15))))));
  CHECK(doc["format"] == "rdmatop.report");
  CHECK(doc["version"] == 1);
  const auto& port = doc["devices"][0]["ports"][0];
  CHECK(port["hw_counters"]["sent_pkts"] == 6000);
  CHECK(port["roce_v2_gid"]["index"] == 1);
  bool saw_tx_rate = false;
  for (const auto& s : port["series"]) {
    if (s["name"] == "rdma_packets_total" && s["labels"]["direction"] == "tx") {
      CHECK(s["rate"]["state"] == "ok");
      CHECK(s["rate"]["per_second"].get<double>() == Approx(1000.0));
      saw_tx_rate = true;
    }
  }
  CHECK(saw_tx_rate);
  CHECK(doc["sources"][1]["state"] == "error");
}

namespace {

Finding storm_finding(Severity severity, FindingState state) {
  Finding f;
  f.rule = "RdmaPfcStormFromNic";
  f.group = "rdmatop-pfc";
  f.severity = severity;
  f.state = state;
  f.labels = {{"device", "rxe0"}, {"port", "1"}, {"priority", "3"}};
  f.value = 0.97;
  f.annotations = {{"remediation", "Check the host receive path."},
                   {"summary", "This NIC is pausing the network on priority 3"}};
  f.evidence = {Evidence{
      {{"__name__", "rdma_pfc_pause_seconds_total"}, {"priority", "3"}}, 42, std::nullopt, 0}};
  return f;
}

}  // namespace

TEST_CASE("report exit code follows the worst active finding", "[report]") {
  const auto report_with = [](std::vector<Finding> findings) {
    return build_tick(nullptr, make_observation(rxe_snapshot(1, 2, std::chrono::seconds(1))),
                      std::move(findings));
  };
  CHECK(report_exit_code(report_with({})) == ReportExit::healthy);
  CHECK(report_exit_code(report_with({storm_finding(Severity::info, FindingState::firing)})) ==
        ReportExit::healthy);
  CHECK(report_exit_code(report_with({storm_finding(Severity::warning, FindingState::pending)})) ==
        ReportExit::warning);
  CHECK(report_exit_code(report_with({storm_finding(Severity::warning, FindingState::firing),
                                      storm_finding(Severity::critical, FindingState::firing)})) ==
        ReportExit::critical);
  // A resolved finding is history, not a current problem.
  CHECK(report_exit_code(report_with(
            {storm_finding(Severity::critical, FindingState::resolved)})) == ReportExit::healthy);
}

TEST_CASE("report exit code counts lifetime evidence only when there are no rates", "[report]") {
  Finding history = storm_finding(Severity::warning, FindingState::firing);
  history.labels.emplace_back("evidence", "lifetime");
  const auto first = make_observation(rxe_snapshot(1, 2, std::chrono::seconds(0)));
  // One snapshot: the totals are all there is, so their warning is the report's.
  PublishedTick single =
      build_tick(nullptr, make_observation(rxe_snapshot(1, 2, std::chrono::seconds(1))), {history});
  CHECK(single.interval_seconds == 0);
  CHECK(report_exit_code(single) == ReportExit::warning);
  // Two snapshots: rates exist, the live findings decide, history is shown beside them.
  PublishedTick rated =
      build_tick(&first, make_observation(rxe_snapshot(1, 2, std::chrono::seconds(5))), {history});
  CHECK(rated.interval_seconds > 0);
  CHECK(report_exit_code(rated) == ReportExit::healthy);
  const std::string text = render_report_text(rated);
  CHECK(text.find("HISTORY (lifetime evidence)") != std::string::npos);
  CHECK(text.find("WARNING   lifetime  RdmaPfcStormFromNic") != std::string::npos);
  const auto doc = nlohmann::json::parse(render_report_json(rated));
  CHECK(doc["findings"][0]["kind"] == "lifetime");
  CHECK(doc["findings"][0]["state"] == "lifetime");
}

TEST_CASE("text and JSON show a finding with its evidence and remediation", "[report]") {
  const PublishedTick report =
      build_tick(nullptr, make_observation(rxe_snapshot(1, 2, std::chrono::seconds(1))),
                 {storm_finding(Severity::critical, FindingState::firing)}, {"bad.yaml:3:1: x"});
  const std::string text = render_report_text(report);
  CHECK(text.find("CRITICAL  firing    RdmaPfcStormFromNic  rxe0/1 priority 3") !=
        std::string::npos);
  CHECK(text.find("This NIC is pausing the network on priority 3") != std::string::npos);
  CHECK(text.find("evidence: rdma_pfc_pause_seconds_total{priority=3} = 42") != std::string::npos);
  CHECK(text.find("remediation: Check the host receive path.") != std::string::npos);
  CHECK(text.find("bad.yaml:3:1: x") != std::string::npos);
  const auto doc = nlohmann::json::parse(render_report_json(report));
  REQUIRE(doc["findings"].size() == 1);
  CHECK(doc["findings"][0]["severity"] == "critical");
  CHECK(doc["findings"][0]["labels"]["priority"] == "3");
  CHECK(doc["findings"][0]["evidence"][0]["value"] == 42);
  CHECK(doc["rule_errors"][0] == "bad.yaml:3:1: x");
}

namespace {

/// Devices rxe0 (port 1) and rxe1 (ports 1 and 2), with `counters` on every port.
Snapshot multi_port_snapshot(const CounterMap& counters, std::chrono::seconds at) {
  Snapshot snap = rxe_snapshot(0, 0, at);
  snap.devices[0].ports[0].hw_counters = counters;
  DeviceSample second = snap.devices[0];
  second.name = "rxe1";
  PortSample port2 = second.ports[0];
  port2.port = 2;
  second.ports.push_back(port2);
  snap.devices.push_back(second);
  return snap;
}

}  // namespace

TEST_CASE("build_tick gives every port exactly its own series, in series order", "[report]") {
  const Observation obs = make_observation(multi_port_snapshot(
      {{"sent_pkts", 1}, {"rcvd_pkts", 2}, {"retry_exceeded_err", 3}}, std::chrono::seconds(1)));
  const PublishedTick report = build_tick(nullptr, obs);
  REQUIRE(report.ports.size() == 3);
  for (const TickPort& pr : report.ports) {
    const DeviceSample& dev = report.snapshot.devices[pr.device_index];
    const PortSample& port = dev.ports[pr.port_index];
    INFO(dev.name << "/" << port.port);
    // The reference: a plain scan of every series of the host for this port's labels.
    std::vector<std::string> expected;
    for (const Series& s : obs.series) {
      if (label_value(s.labels, "device") == dev.name &&
          label_value(s.labels, "port") == std::to_string(port.port)) {
        expected.push_back(series_key(s.name, s.labels));
      }
    }
    std::vector<std::string> got;
    for (const auto& s : pr.series) got.push_back(series_key(s.series.name, s.series.labels));
    CHECK_FALSE(got.empty());
    CHECK(got == expected);
  }
}

namespace {

/// Each TickPort's series keys, in order.
std::vector<std::vector<std::string>> placed_keys(const PublishedTick& report) {
  std::vector<std::vector<std::string>> out;
  for (const TickPort& pr : report.ports) {
    out.emplace_back();
    for (const auto& s : pr.series)
      out.back().push_back(series_key(s.series.name, s.series.labels));
  }
  return out;
}

/// Per series of `obs`, the ordinal of the port its device and port labels name (ports counted
/// as PublishedTick::ports lists them), or kPortByLabels: the reference a tag must equal.
std::vector<std::uint32_t> ports_by_labels(const Observation& obs) {
  std::vector<std::uint32_t> out;
  for (const Series& s : obs.series) {
    std::uint32_t ordinal = 0, found = kPortByLabels;
    for (const DeviceSample& dev : obs.snapshot.devices) {
      for (const PortSample& port : dev.ports) {
        if (found == kPortByLabels && label_value(s.labels, "device") == dev.name &&
            label_value(s.labels, "port") == std::to_string(port.port)) {
          found = ordinal;
        }
        ++ordinal;
      }
    }
    out.push_back(found);
  }
  return out;
}

}  // namespace

TEST_CASE("the normalizer tags each series with the port its labels name, on every fixture host",
          "[report]") {
  namespace fs = std::filesystem;
  for (const char* host : {"mlx5", "bnxt", "irdma", "rxe", "degraded"}) {
    INFO("host " << host);
    const fs::path root = fs::path(RDMATOP_SOURCE_DIR) / "tests/fixtures/hosts" / host;
    const auto sysfs = make_directory_file_source((root / "sys").string());
    const auto ethtool = make_dump_ethtool_source((root / "ethtool").string());
    const Snapshot snap = collect_snapshot(CollectContext{*sysfs, *ethtool, {}}, 1);
    Normalizer normalizer;
    for (const Observation& obs :
         {make_observation(snap), normalizer.observe(snap), normalizer.observe(snap)}) {
      REQUIRE(obs.series_ports.size() == obs.series.size());
      // Each tag is the port the labels name; a series made outside the ports' visits is left
      // to its labels.
      const std::vector<std::uint32_t> reference = ports_by_labels(obs);
      std::size_t tagged = 0;
      for (std::size_t k = 0; k < obs.series.size(); ++k) {
        if (obs.series_ports[k] == kPortByLabels) continue;
        INFO(series_key(obs.series[k].name, obs.series[k].labels));
        CHECK(obs.series_ports[k] == reference[k]);
        ++tagged;
      }
      CHECK(tagged > obs.series.size() / 2);
      // The port of a series is found from its labels when an Observation has no tags: the
      // same placement.
      Observation untagged = obs;
      untagged.series_ports.clear();
      CHECK(placed_keys(build_tick(nullptr, obs)) == placed_keys(build_tick(nullptr, untagged)));
    }
  }
}

TEST_CASE("a tick built without port views has the same series and no figures", "[report]") {
  // rxe's sent_bytes (rxe_hw_counters.c) feeds the TX figure.
  const Observation first = make_observation(multi_port_snapshot(
      {{"sent_pkts", 100}, {"rcvd_pkts", 50}, {"sent_bytes", 1000}}, std::chrono::seconds(10)));
  const Observation last = make_observation(multi_port_snapshot(
      {{"sent_pkts", 600}, {"rcvd_pkts", 90}, {"sent_bytes", 6000}}, std::chrono::seconds(15)));
  const PublishedTick with = build_tick(&first, last);
  const PublishedTick without = build_tick(&first, last, {}, {}, PortViews::skip);
  CHECK(placed_keys(without) == placed_keys(with));
  REQUIRE(with.ports.size() == without.ports.size());
  for (std::size_t i = 0; i < with.ports.size(); ++i) {
    // The views are what a skipped tick leaves out: the built one has figures.
    bool any = false;
    for (const auto& figure : with.ports[i].view.figures) any |= figure.has_value();
    CHECK(any);
    const PortView& none = without.ports[i].view;
    REQUIRE(none.figures.size() == port_figure_defs().size());
    for (const auto& figure : none.figures) CHECK_FALSE(figure.has_value());
    CHECK(none.priorities.empty());
  }
}

TEST_CASE("a device listed twice gets its series on both entries, tagged or not", "[report]") {
  Snapshot snap = multi_port_snapshot({{"sent_pkts", 5}}, std::chrono::seconds(1));
  snap.devices.push_back(snap.devices[0]);  // rxe0 again, after rxe1
  const Observation obs = make_observation(snap);
  Observation untagged = obs;
  untagged.series_ports.clear();
  const PublishedTick report = build_tick(nullptr, obs);
  REQUIRE(report.ports.size() == 4);
  const auto placed = placed_keys(report);
  CHECK_FALSE(placed[0].empty());
  CHECK(placed[3] == placed[0]);
  CHECK(placed == placed_keys(build_tick(nullptr, untagged)));
}

TEST_CASE("build_tick rates: series that appear or vanish between ticks", "[report]") {
  // rcvd_pkts vanishes and retry_exceeded_err appears: the rest still pair up across the gap.
  const Observation first = make_observation(
      multi_port_snapshot({{"sent_pkts", 100}, {"rcvd_pkts", 50}}, std::chrono::seconds(10)));
  const PublishedTick report = build_tick(
      &first, make_observation(multi_port_snapshot({{"sent_pkts", 600}, {"retry_exceeded_err", 7}},
                                                   std::chrono::seconds(15))));
  REQUIRE(report.ports.size() == 3);
  for (const TickPort& pr : report.ports) {
    const SeriesWithRate* tx = find(pr, "rdma_packets_total", "tx");
    REQUIRE(tx != nullptr);
    CHECK(tx->rate.state == RateState::ok);
    CHECK(tx->rate.per_second == Approx(100.0));
    CHECK(find(pr, "rdma_packets_total", "rx") == nullptr);
    for (const auto& s : pr.series) {
      if (s.series.kind != SeriesKind::counter) continue;
      INFO(series_key(s.series.name, s.series.labels));
      bool before = false;
      for (const Series& b : first.series)
        before |= b.name == s.series.name && b.labels == s.series.labels;
      CHECK((s.rate.state == RateState::init) == !before);
    }
  }
}
