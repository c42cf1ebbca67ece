#include <prometheus/text_serializer.h>
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>

#include "exporters/prometheus/metrics_collectable.h"
#include "exporters/prometheus/probe_metrics.h"
#include "tests/support/metric_family.h"
#include "tests/support/probe_samples.h"
#include "tests/support/text_search.h"

using namespace rdmatop;
using prometheus::MetricFamily;
using prometheus::MetricType;
using rdmatop::test::contains;
using rdmatop::test::family;

namespace {

Snapshot probed(std::uint64_t sent, std::uint64_t answered, std::chrono::seconds at) {
  Snapshot snap;
  snap.taken = std::chrono::steady_clock::time_point(at);
  snap.probes.push_back(test::probe_stream("10.0.0.2", "rc_send", sent, answered));
  ProbeTargetSample tcp = test::probe_stream("10.0.0.2", "tcp", sent, sent);
  tcp.group = "tor-a";
  snap.probes.push_back(tcp);
  snap.prober = ProberCost{0.5, 1, 4096, 1};
  return snap;
}

ExporterView view_of(const Snapshot& first_snap, const Snapshot& last_snap) {
  const Observation first = make_observation(first_snap);
  ExporterView v;
  v.report = std::make_shared<const PublishedTick>(build_tick(&first, make_observation(last_snap)));
  v.poll.polls = 2;
  return v;
}

}  // namespace

TEST_CASE("exporter: the probe RTT is one real histogram per stream", "[exporter][probe]") {
  const auto families = build_metric_families(
      view_of(probed(10, 10, std::chrono::seconds(1)), probed(100, 90, std::chrono::seconds(2))),
      MetricsOptions{});
  CHECK(std::is_sorted(families.begin(), families.end(),
                       [](const auto& a, const auto& b) { return a.name < b.name; }));
  const MetricFamily* rtt = family(families, "rdma_probe_rtt_seconds");
  REQUIRE(rtt != nullptr);
  CHECK(rtt->type == MetricType::Histogram);
  REQUIRE(rtt->metric.size() == 2);
  // Neither the parts nor the window gauges leak out as families of their own.
  CHECK(family(families, "rdma_probe_rtt_seconds_bucket") == nullptr);
  CHECK(family(families, "rdma_probe_rtt_seconds_count") == nullptr);
  const std::string out = prometheus::TextSerializer().Serialize(families);
  CHECK(contains(out, "# TYPE rdma_probe_rtt_seconds histogram\n"));
  CHECK(contains(out,
                 "rdma_probe_rtt_seconds_bucket{target=\"10.0.0.2\",transport=\"rc_send\","
                 "le=\"0.0001\"} 81\n"));
  CHECK(contains(out,
                 "rdma_probe_rtt_seconds_count{target=\"10.0.0.2\",transport=\"rc_send\"} 90\n"));
  CHECK(contains(out,
                 "rdma_probe_rtt_seconds_bucket{group=\"tor-a\",target=\"10.0.0.2\","
                 "transport=\"tcp\",le=\"+Inf\"} 100\n"));
  // Exactly one +Inf bucket per stream.
  std::size_t inf = 0;
  for (std::size_t at = out.find("le=\"+Inf\""); at != std::string::npos;
       at = out.find("le=\"+Inf\"", at + 1)) {
    ++inf;
  }
  CHECK(inf == 2);
}

TEST_CASE("exporter: probe counters, gauges and the prober's cost", "[exporter][probe]") {
  Snapshot last = probed(100, 90, std::chrono::seconds(2));
  last.probes[0].connected = false;
  const auto families = build_metric_families(
      view_of(probed(10, 10, std::chrono::seconds(1)), last), MetricsOptions{});
  struct Row {
    const char* name;
    MetricType type;
  };
  for (const Row& row : {Row{"rdma_probe_sent_total", MetricType::Counter},
                         Row{"rdma_probe_timeouts_total", MetricType::Counter},
                         Row{"rdma_probe_up", MetricType::Gauge},
                         Row{"rdmatop_prober_cpu_seconds_total", MetricType::Counter},
                         Row{"rdmatop_prober_registered_bytes", MetricType::Gauge}}) {
    INFO(row.name);
    const MetricFamily* f = family(families, row.name);
    REQUIRE(f != nullptr);
    CHECK(f->type == row.type);
    CHECK_FALSE(f->help.empty());
  }
  const std::string out = prometheus::TextSerializer().Serialize(families);
  CHECK(contains(out, "rdma_probe_timeouts_total{target=\"10.0.0.2\",transport=\"rc_send\"} 10\n"));
  CHECK(contains(out, "rdma_probe_up{target=\"10.0.0.2\",transport=\"rc_send\"} 0\n"));
  CHECK(contains(out, "rdmatop_prober_registered_bytes 4096\n"));
}

TEST_CASE("exporter: no prober, no probe families", "[exporter][probe]") {
  const auto families = build_metric_families(view_of(Snapshot{}, Snapshot{}), MetricsOptions{});
  for (const auto& f : families) {
    INFO(f.name);
    CHECK(f.name.rfind("rdma_probe_", 0) != 0);
    CHECK(f.name.rfind("rdmatop_prober_", 0) != 0);
  }
}

TEST_CASE("merge_metric_families keeps the order by name", "[exporter][probe]") {
  std::vector<MetricFamily> a(3), b(2);
  a[0].name = "a";
  a[1].name = "m";
  a[2].name = "z";
  b[0].name = "b";
  b[1].name = "y";
  merge_metric_families(a, std::move(b));
  std::vector<std::string> names;
  for (const auto& f : a) names.push_back(f.name);
  CHECK(names == std::vector<std::string>{"a", "b", "m", "y", "z"});
}
