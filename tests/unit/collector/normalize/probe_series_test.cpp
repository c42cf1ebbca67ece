#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "collector/normalize/normalizer.h"
#include "collector/normalize/probe_series.h"
#include "tests/support/probe_samples.h"

using namespace rdmatop;

namespace {

/// Pointers into `series`, which must outlive the map (a temporary would dangle).
std::map<std::string, const Series*> by_key(const std::vector<Series>& series) {
  std::map<std::string, const Series*> out;
  for (const Series& s : series) out.emplace(series_key(s.name, s.labels), &s);
  return out;
}

Snapshot probed_host() {
  Snapshot snap;
  ProbeTargetSample rc = test::probe_stream("10.0.0.2", "rc_send", 100, 96);
  rc.group = "tor-a";
  rc.traffic_class = 106;
  rc.qp_errors = 1;
  rc.connect_failures = 2;
  rc.wc_errors = {{"transport retry counter exceeded", 3}};
  rc.retransmits = 9;
  rc.retransmit_scope = "qp";
  rc.window = RttSummary{4, 1e-6, 2e-6, 3e-6, 4e-6, 5e-6, 6e-6};
  snap.probes.push_back(rc);
  ProbeTargetSample tcp = test::probe_stream("10.0.0.2", "tcp", 100, 100);
  tcp.connected = false;
  snap.probes.push_back(tcp);
  snap.prober = ProberCost{1.5, 2, 65536, 1};
  return snap;
}

}  // namespace

TEST_CASE("probe counters carry the stream's labels", "[probe_series]") {
  const auto series = normalize(probed_host());
  const auto keys = by_key(series);
  const std::string rc = R"(group="tor-a",target="10.0.0.2",tclass="106",transport="rc_send")";
  const std::string tcp = R"(target="10.0.0.2",transport="tcp")";
  struct Row {
    std::string key;
    double value;
  };
  const std::vector<Row> rows = {
      {"rdma_probe_sent_total{" + rc + "}", 100},
      {"rdma_probe_answered_total{" + rc + "}", 96},
      {"rdma_probe_timeouts_total{" + rc + "}", 4},
      {"rdma_probe_connect_failures_total{" + rc + "}", 2},
      {"rdma_probe_qp_errors_total{" + rc + "}", 1},
      {R"(rdma_probe_wc_errors_total{group="tor-a",status="transport retry counter exceeded",target="10.0.0.2",tclass="106",transport="rc_send"})",
       3},
      {R"(rdma_probe_retransmits_total{group="tor-a",scope="qp",target="10.0.0.2",tclass="106",transport="rc_send"})",
       9},
      {"rdma_probe_up{" + rc + "}", 1},
      {"rdma_probe_up{" + tcp + "}", 0},
      {"rdma_probe_sent_total{" + tcp + "}", 100},
      {"rdmatop_prober_cpu_seconds_total{}", 1.5},
      {"rdmatop_prober_qps{}", 2},
      {"rdmatop_prober_registered_bytes{}", 65536},
      {"rdmatop_prober_targets{}", 1},
  };
  for (const Row& row : rows) {
    INFO(row.key);
    const auto it = keys.find(row.key);
    REQUIRE(it != keys.end());
    CHECK(it->second->value == row.value);
  }
  CHECK(keys.at("rdmatop_prober_cpu_seconds_total{}")->kind == SeriesKind::counter);
  CHECK(keys.at("rdmatop_prober_qps{}")->kind == SeriesKind::gauge);
}

TEST_CASE("the RTT histogram is laid out as Prometheus buckets", "[probe_series]") {
  const auto series = normalize(probed_host());  // keys point into it: keep it alive
  const auto keys = by_key(series);
  const std::string tcp = R"(target="10.0.0.2",transport="tcp")";
  const std::map<std::string, double> buckets = {
      {"1e-05", 50}, {"0.0001", 90}, {"0.001", 100}, {"+Inf", 100}};
  for (const auto& [le, count] : buckets) {
    const std::string key =
        R"(rdma_probe_rtt_seconds_bucket{le=")" + le + R"(",target="10.0.0.2",transport="tcp"})";
    INFO(key);
    REQUIRE(keys.count(key) == 1);
    CHECK(keys.at(key)->value == count);
    CHECK(keys.at(key)->kind == SeriesKind::counter);
  }
  CHECK(keys.at("rdma_probe_rtt_seconds_count{" + tcp + "}")->value == 100);
  CHECK(keys.at("rdma_probe_rtt_seconds_sum{" + tcp + "}")->value == Approx(100 * 2e-5));
}

TEST_CASE("window quantiles are gauges, absent when nothing was answered", "[probe_series]") {
  const auto series = normalize(probed_host());  // keys point into it: keep it alive
  const auto keys = by_key(series);
  const std::map<std::string, double> quantiles = {{"0", 1e-6},    {"0.5", 2e-6},   {"0.9", 3e-6},
                                                   {"0.99", 4e-6}, {"0.999", 5e-6}, {"1", 6e-6}};
  for (const auto& [q, value] : quantiles) {
    const std::string key = R"(rdma_probe_rtt_quantile_seconds{group="tor-a",target="10.0.0.2",)"
                            R"(tclass="106",transport="rc_send",window_quantile=")" +
                            q + "\"}";
    INFO(key);
    REQUIRE(keys.count(key) == 1);
    CHECK(keys.at(key)->value == value);
    CHECK(keys.at(key)->kind == SeriesKind::gauge);
  }
  // The TCP stream has no window: no quantile series at all (absent is not zero).
  for (const auto& [key, s] : keys) {
    if (s->name == "rdma_probe_rtt_quantile_seconds") {
      CHECK(label_value(s->labels, "transport") == "rc_send");
    }
  }
}

TEST_CASE("unknown retransmits and no prober produce no series", "[probe_series]") {
  Snapshot snap = probed_host();
  snap.probes[0].retransmits.reset();
  snap.prober.reset();
  for (const Series& s : normalize(snap)) {
    INFO(s.name);
    CHECK(s.name != "rdma_probe_retransmits_total");
    CHECK_FALSE(s.name.starts_with("rdmatop_prober_"));
  }
  CHECK(normalize(Snapshot{}).empty());
}

TEST_CASE("an inconsistent histogram keeps only _count, _sum and +Inf", "[probe_series]") {
  struct Case {
    const char* what;
    std::vector<double> bounds;
    std::vector<std::uint64_t> counts;
  };
  const std::vector<Case> cases = {
      {"sizes differ", {1e-5, 1e-4}, {1}},
      {"bounds not increasing", {1e-4, 1e-5}, {1, 2}},
      {"counts not cumulative", {1e-5, 1e-4}, {5, 2}},
      {"count above answered", {1e-5}, {1000}},
      {"NaN bound", {std::nan("")}, {1}},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    Snapshot snap;
    ProbeTargetSample p = test::probe_stream("h", "rc_write", 10, 10);
    p.bucket_upper_seconds = c.bounds;
    p.bucket_counts = c.counts;
    snap.probes.push_back(p);
    std::vector<std::string> les;
    for (const Series& s : normalize(snap)) {
      if (s.name == "rdma_probe_rtt_seconds_bucket") les.push_back(label_value(s.labels, "le"));
    }
    CHECK(les == std::vector<std::string>{"+Inf"});
  }
}

TEST_CASE("bucket bounds print as Prometheus clients print them", "[probe_series]") {
  CHECK(format_le(1e-5) == "1e-05");
  CHECK(format_le(0.00025) == "0.00025");
  CHECK(format_le(1) == "1");
  CHECK(format_le(1e-4) == "0.0001");
  CHECK(format_le(2.5) == "2.5");
  CHECK(format_le(0) == "0");
  CHECK(format_le(std::numeric_limits<double>::infinity()) == "+Inf");
}
