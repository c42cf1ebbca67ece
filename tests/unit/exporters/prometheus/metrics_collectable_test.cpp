#include <prometheus/text_serializer.h>
#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "collector/normalize/metric_catalogue.h"
#include "collector/process_collector.h"
#include "exporters/prometheus/metrics_collectable.h"
#include "tests/support/metric_family.h"
#include "tests/support/text_search.h"

using namespace rdmatop;
using prometheus::MetricFamily;
using prometheus::MetricType;
using rdmatop::test::contains;
using rdmatop::test::family;

namespace {

Snapshot rxe_snapshot(std::uint64_t sent, std::chrono::seconds at) {
  Snapshot snap;
  snap.taken = std::chrono::steady_clock::time_point(at);
  snap.wall = std::chrono::system_clock::time_point(std::chrono::seconds(1700000000) + at);
  DeviceSample dev;
  dev.name = "rxe0";
  dev.driver = "rxe";
  dev.node_guid = "5054:00ff:fe12:3456";
  PortSample port;
  port.port = 1;
  port.state = "ACTIVE";
  port.state_id = 4;
  port.link_layer = "Ethernet";
  port.netdev = "eth0";
  port.hw_counters = {{"sent_pkts", sent}, {"rcvd_pkts", 7}};
  dev.ports.push_back(port);
  snap.devices.push_back(dev);
  NetdevSample nd;
  nd.name = "eth0";
  nd.ethtool = {{"rx_prio3_pause", 11}};
  nd.driver = DriverInfo{"virtio_net", "1.0.0", "", "0000:00:03.0"};
  snap.netdevs.push_back(nd);
  snap.sources.push_back(SourceStatus{"sysfs", "rxe0", SourceState::ok, "", {}});
  snap.sources.push_back(SourceStatus{"ethtool", "eth0", SourceState::error, "ENODEV", {}});
  snap.sources.push_back(SourceStatus{"devlink", "", SourceState::no_data, "", {}});
  return snap;
}

Finding finding(FindingState state) {
  Finding f;
  f.rule = "RdmaTestAlert";
  f.group = "g";
  f.severity = Severity::critical;
  f.state = state;
  f.active_since = 1700000001500;
  f.labels = {{"__name__", "rdma_x"}, {"alertname", "RdmaTestAlert"}, {"device", "rxe0"}};
  return f;
}

ExporterView view_of(std::vector<Finding> findings = {}) {
  const Observation first = make_observation(rxe_snapshot(1000, std::chrono::seconds(10)));
  ExporterView v;
  v.report = std::make_shared<const PublishedTick>(
      build_tick(&first, make_observation(rxe_snapshot(6000, std::chrono::seconds(15))),
                 std::move(findings), {"rules.yaml:1:1: bad"}));
  v.poll.polls = 3;
  v.poll.last_poll_duration_seconds = 0.25;
  v.poll.last_poll_end_unix_seconds = 1700000015.5;
  return v;
}

std::string text(const std::vector<MetricFamily>& families) {
  return prometheus::TextSerializer().Serialize(families);
}

/// The exposition without the process_* families, which render_metrics_page reads from /proc
/// at every rendering (so they differ between two renderings of one collection).
std::string without_process(const std::string& exposition) {
  std::string out;
  std::size_t begin = 0;
  while (begin < exposition.size()) {
    const std::size_t end = exposition.find('\n', begin);
    const std::string line = exposition.substr(begin, end - begin + 1);
    if (!line.starts_with("process_") && !line.starts_with("# HELP process_") &&
        !line.starts_with("# TYPE process_")) {
      out += line;
    }
    if (end == std::string::npos) break;
    begin = end + 1;
  }
  return out;
}

MetricsOptions options(bool raw = true) {
  MetricsOptions o;
  o.raw_counters = raw;
  o.version = "9.8.7";
  return o;
}

}  // namespace

TEST_CASE("exporter: before the first collection only self-metrics are served", "[exporter]") {
  const auto families = build_metric_families(ExporterView{}, options());
  const std::string out = text(families);
  CHECK(contains(out, "rdmatop_build_info{version=\"9.8.7\"} 1\n"));
  CHECK(contains(out, "rdmatop_collections_total 0\n"));
  // No collection yet: no timestamp that would claim fresh data.
  CHECK(family(families, "rdmatop_last_collection_timestamp_seconds") == nullptr);
  CHECK(family(families, "rdma_device_info") == nullptr);
}

TEST_CASE("exporter: canonical series keep their rule names, kinds and help", "[exporter]") {
  const auto families = build_metric_families(view_of(), options());
  CHECK(std::is_sorted(families.begin(), families.end(),
                       [](const auto& a, const auto& b) { return a.name < b.name; }));
  const MetricFamily* packets = family(families, "rdma_packets_total");
  REQUIRE(packets != nullptr);
  CHECK(packets->type == MetricType::Counter);
  REQUIRE(find_metric("rdma_packets_total") != nullptr);
  CHECK(packets->help == std::string(find_metric("rdma_packets_total")->help));
  const std::string out = text(families);
  CHECK(contains(out, "# TYPE rdma_packets_total counter\n"));
  CHECK(contains(out, "direction=\"tx\""));
}

// The expected Prometheus TYPE of each catalogue kind.
const std::map<MetricKind, MetricType> kTypeOfKind{{MetricKind::counter, MetricType::Counter},
                                                   {MetricKind::gauge, MetricType::Gauge},
                                                   {MetricKind::histogram, MetricType::Histogram},
                                                   {MetricKind::untyped, MetricType::Untyped}};

TEST_CASE("exporter: every family's HELP and TYPE are its catalogue row's", "[exporter]") {
  ExporterView view = view_of({finding(FindingState::firing)});
  auto tick = std::make_shared<PublishedTick>(*view.report);
  RuleCoverage coverage;
  coverage.rule = "RdmaTestAlert";
  coverage.group = "g";
  tick->coverage.push_back(coverage);
  // One raw counter of each map, so that every raw family is served.
  tick->snapshot.devices.at(0).hw_counters = {{"rx_write_requests", 1}};
  tick->snapshot.devices.at(0).ports.at(0).counters = {{"port_rcv_packets", 2}};
  tick->snapshot.netdevs.at(0).statistics = {{"rx_bytes", 3}};
  view.report = tick;
  view.process = ProcessMetrics{1, 2, 3, 4, 5, 6};
  view.poll.source_errors[{"ethtool", "eth0"}] = 1;
  std::set<std::string> served;
  for (const MetricFamily& f : build_metric_families(view, options())) {
    INFO(f.name);
    const MetricInfo* info = find_metric(f.name);
    REQUIRE(info != nullptr);
    CHECK(f.help == std::string(info->help));
    CHECK(f.type == kTypeOfKind.at(info->kind));
    served.insert(f.name);
  }
  // The exporter makes every family of its own scope from a view like this one.
  for (const MetricInfo& m : metric_catalogue()) {
    INFO(m.name);
    if (m.scope == MetricScope::exporter) CHECK(served.count(std::string(m.name)) == 1);
  }
}

TEST_CASE("exporter: a series without a catalogue row is served, named uncatalogued",
          "[exporter]") {
  ExporterView view = view_of();
  auto tick = std::make_shared<PublishedTick>(*view.report);
  REQUIRE_FALSE(tick->ports.empty());
  tick->ports[0].series.push_back(
      SeriesWithRate{Series{"rdma_not_in_the_catalogue", {}, SeriesKind::gauge, 1, 0, 0, ""}, {}});
  view.report = tick;
  const auto families = build_metric_families(view, options());
  const MetricFamily* f = family(families, "rdma_not_in_the_catalogue");
  REQUIRE(f != nullptr);
  CHECK(f->type == MetricType::Untyped);
  CHECK_THAT(f->help, Catch::Contains("uncatalogued"));
  CHECK(contains(text(families), "rdma_not_in_the_catalogue 1\n"));
}

TEST_CASE("exporter: raw counters are labelled by source name and can be turned off",
          "[exporter]") {
  const std::string with_raw = text(build_metric_families(view_of(), options(true)));
  CHECK(contains(with_raw,
                 "rdma_raw_port_hw_counters{device=\"rxe0\",port=\"1\",counter=\"sent_pkts\"} "
                 "6000\n"));
  CHECK(contains(with_raw, "rdma_raw_ethtool_stats{netdev=\"eth0\",stat=\"rx_prio3_pause\"} 11\n"));
  CHECK(contains(with_raw, "# TYPE rdma_raw_port_hw_counters untyped\n"));
  const std::string without = text(build_metric_families(view_of(), options(false)));
  CHECK_FALSE(contains(without, "rdma_raw_"));
  CHECK(contains(without, "rdma_packets_total"));
}

TEST_CASE("exporter: info metrics, source status and poll health", "[exporter]") {
  const std::string out = text(build_metric_families(view_of(), options()));
  CHECK(contains(out, "device=\"rxe0\",driver=\"rxe\""));
  CHECK(contains(out,
                 "rdma_port_info{device=\"rxe0\",link_layer=\"Ethernet\",netdev=\"eth0\","
                 "port=\"1\"} 1\n"));
  CHECK(contains(out, "driver=\"virtio_net\""));
  CHECK(contains(out, "rdmatop_source_up{source=\"ethtool\",target=\"eth0\"} 0\n"));
  CHECK(contains(out, "rdmatop_source_up{source=\"sysfs\",target=\"rxe0\"} 1\n"));
  // "No data" (the subsystem is absent) is not a failure.
  CHECK(contains(out, "rdmatop_source_up{source=\"devlink\",target=\"\"} 1\n"));
  // ... but it is told apart from a source that had data, and from a broken one.
  CHECK(contains(out, "rdmatop_source_no_data{source=\"devlink\",target=\"\"} 1\n"));
  CHECK(contains(out, "rdmatop_source_no_data{source=\"sysfs\",target=\"rxe0\"} 0\n"));
  CHECK(contains(out, "rdmatop_source_no_data{source=\"ethtool\",target=\"eth0\"} 0\n"));
  CHECK(contains(out, "rdmatop_collections_total 3\n"));
  CHECK(contains(out, "rdmatop_collection_duration_seconds 0.25\n"));
  CHECK(contains(out, "rdmatop_last_collection_timestamp_seconds 1700000015.5\n"));
  CHECK(contains(out, "rdmatop_rule_errors 1\n"));
}

TEST_CASE("exporter: active findings become alert-style series, resolved ones vanish",
          "[exporter]") {
  const auto families = build_metric_families(
      view_of({finding(FindingState::firing), finding(FindingState::resolved)}), options());
  const MetricFamily* findings = family(families, "rdmatop_finding");
  REQUIRE(findings != nullptr);
  REQUIRE(findings->metric.size() == 1);
  const std::string out = text(families);
  CHECK(contains(out,
                 "rdmatop_finding{alertname=\"RdmaTestAlert\",device=\"rxe0\",severity=\""
                 "critical\",state=\"firing\"} 1\n"));
  CHECK(contains(out,
                 "rdmatop_finding_active_since_timestamp_seconds{alertname=\"RdmaTestAlert\""
                 ",device=\"rxe0\",severity=\"critical\",state=\"firing\"} 1700000001.5\n"));
  CHECK_FALSE(contains(out, "__name__"));
  const std::string pending =
      text(build_metric_families(view_of({finding(FindingState::pending)}), options()));
  CHECK(contains(pending, "state=\"pending\"} 1\n"));
}

TEST_CASE("exporter: label values with quotes, backslashes and newlines are escaped",
          "[exporter]") {
  ExporterView v = view_of();
  PublishedTick r = *v.report;
  r.snapshot.devices[0].fw_ver = "a\"b\\c\nd";
  v.report = std::make_shared<const PublishedTick>(std::move(r));
  CHECK(contains(text(build_metric_families(v, options())), "fw_ver=\"a\\\"b\\\\c\\nd\""));
}

TEST_CASE("exporter: the page is the collection's families with the process read at rendering",
          "[exporter]") {
  const ExporterView view = view_of({finding(FindingState::firing)});
  const std::string families = text(build_metric_families(view, options()));
  const std::string page = render_metrics_page(view, options(), host_process_reader());
  CHECK(without_process(page) == families);
  // The exporter's own process, read at the rendering (this test process: it has run, so its
  // start time is in the past and it holds open files).
  CHECK(contains(page, "\nprocess_start_time_seconds "));
  CHECK(contains(page, "\nprocess_open_fds "));
  CHECK_FALSE(contains(page, "\nprocess_resident_memory_bytes 0\n"));
  // No reader, or one that fails: no process_* family, and nothing else lost.
  CHECK(render_metrics_page(view, options(), {}) == families);
  const ProcessReader failing = [] { return Result<ProcessMetrics>(Error{EACCES, "/proc"}); };
  CHECK(render_metrics_page(view, options(), failing) == families);
  CHECK_FALSE(contains(families, "process_"));
}

TEST_CASE("exporter: per-source error counters count failed collections, from 0", "[exporter]") {
  std::map<std::pair<std::string, std::string>, std::uint64_t> errors;
  Snapshot snap = rxe_snapshot(5000, std::chrono::seconds(0));
  // ethtool/eth0 fails twice within this collection: it counts once.
  snap.sources.push_back(SourceStatus{"ethtool", "eth0", SourceState::error, "EIO", {}});
  count_source_errors(snap, errors);
  count_source_errors(rxe_snapshot(6000, std::chrono::seconds(15)), errors);
  CHECK(errors.at({"ethtool", "eth0"}) == 2);
  CHECK(errors.at({"sysfs", "rxe0"}) == 0);  // never failed: present at 0
  CHECK(errors.at({"devlink", ""}) == 0);    // no data is not an error

  ExporterView view = view_of();
  view.poll.source_errors = errors;
  const std::string out = text(build_metric_families(view, options()));
  CHECK(contains(out, "# TYPE rdmatop_source_errors_total counter\n"));
  CHECK(contains(out, "rdmatop_source_errors_total{source=\"ethtool\",target=\"eth0\"} 2\n"));
  CHECK(contains(out, "rdmatop_source_errors_total{source=\"sysfs\",target=\"rxe0\"} 0\n"));
}
