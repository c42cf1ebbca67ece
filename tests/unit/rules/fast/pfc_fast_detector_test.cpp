// The PFC fast path's detector (rules/fast/pfc_fast_detector.h): each signature on synthetic
// per-priority counters sampled every 100 ms, the hysteresis, a link flap, a counter blinded by
// the NIC's own storm watchdog, absent counters, and the merge with the rules' findings.
#include "rules/fast/pfc_fast_detector.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

using namespace rdmatop;
using namespace rdmatop::fast;

namespace {

constexpr std::int64_t kPollUs = 100'000;
constexpr double kPoll = 0.1;
constexpr std::int64_t kStartUs = 1'700'000'000'000'000;

/// One port (mlx5_0/1, ens1f0np0), priority 3: cumulative counters the test advances.
struct Port {
  double rx_pause_s = 0, tx_pause_s = 0;
  double rx_frames = 0, tx_frames = 0;
  double rx_transitions = 0;
  double rx_packets = 0, tx_packets = 0;
  std::optional<double> storm_errors;
  bool durations = true;  ///< false: frames only (ice)
  bool packets = true;
  double link_bytes_per_s = 12.5e9;  ///< 100 Gb/s

  /// Advances by one poll with these pause shares and packet rates.
  void step(double rx_share, double tx_share, double rx_pps, double tx_pps,
            bool transitions = true) {
    rx_pause_s += rx_share * kPoll;
    tx_pause_s += tx_share * kPoll;
    // One frame per 65535 quanta at 100 Gb/s (~335 us): the frames x quanta estimate is exact.
    const double frame_s = 65535.0 * 512 / (link_bytes_per_s * 8);
    rx_frames += rx_share * kPoll / frame_s;
    tx_frames += tx_share * kPoll / frame_s;
    if (transitions && rx_share > 0) rx_transitions += 10;
    rx_packets += rx_pps * kPoll;
    tx_packets += tx_pps * kPoll;
  }

  std::vector<Series> series() const {
    std::vector<Series> out;
    auto add = [&](const char* name, const char* direction, double value) {
      Labels labels{{"device", "mlx5_0"}, {"port", "1"}, {"netdev", "ens1f0np0"}};
      if (direction != nullptr) {
        labels.emplace_back("direction", direction);
        labels.emplace_back("priority", "3");
      }
      add_series(out, name, labels, SeriesKind::counter, value, "test");
    };
    if (durations) {
      add("rdma_pfc_pause_seconds_total", "rx", rx_pause_s);
      add("rdma_pfc_pause_seconds_total", "tx", tx_pause_s);
      add("rdma_pfc_pause_transitions_total", "rx", rx_transitions);
    }
    add("rdma_pfc_pause_frames_total", "rx", rx_frames);
    add("rdma_pfc_pause_frames_total", "tx", tx_frames);
    if (packets) {
      add("rdma_priority_packets_total", "rx", rx_packets);
      add("rdma_priority_packets_total", "tx", tx_packets);
    }
    if (storm_errors) {
      Labels labels{
          {"device", "mlx5_0"}, {"level", "error"}, {"netdev", "ens1f0np0"}, {"port", "1"}};
      add_series(out, "rdma_pause_storm_events_total", labels, SeriesKind::counter, *storm_errors,
                 "test");
    }
    Labels rate{{"device", "mlx5_0"}, {"netdev", "ens1f0np0"}, {"port", "1"}};
    add_series(out, "rdma_port_rate_bytes_per_second", rate, SeriesKind::gauge, link_bytes_per_s,
               "test");
    return out;
  }
};

/// Drives a detector poll by poll and records every finding state it publishes.
struct Run {
  PfcFastDetector detector;
  Port port;
  std::int64_t t_us = kStartUs;
  int firings = 0;  ///< times any finding went to firing (fire/resolve cycles count each)
  int resolutions = 0;

  void poll(double rx_share, double tx_share, double rx_pps, double tx_pps,
            bool transitions = true) {
    port.step(rx_share, tx_share, rx_pps, tx_pps, transitions);
    t_us += kPollUs;
    const auto before = detector.findings();
    detector.observe(port.series(), t_us);
    for (const Finding& now : detector.findings()) {
      bool was_firing = false, was_resolved = false;
      for (const Finding& b : before) {
        if (b.rule == now.rule) {
          was_firing = b.state == FindingState::firing;
          was_resolved = b.state == FindingState::resolved;
        }
      }
      if (now.state == FindingState::firing && !was_firing) ++firings;
      if (now.state == FindingState::resolved && !was_resolved) ++resolutions;
    }
  }
  void polls(int n, double rx_share, double tx_share, double rx_pps, double tx_pps,
             bool transitions = true) {
    for (int i = 0; i < n; ++i) poll(rx_share, tx_share, rx_pps, tx_pps, transitions);
  }
  const Finding* find(const char* rule) const {
    static std::vector<Finding> keep;
    keep = detector.findings();
    for (const Finding& f : keep) {
      if (f.rule == rule) return &f;
    }
    return nullptr;
  }
};

constexpr double kBusy = 1e6;  ///< packets per second of a loaded priority

}  // namespace

TEST_CASE("A NIC pausing the peer with nothing arriving is a storm within two polls",
          "[fast][detector]") {
  Run run;
  run.polls(20, 0.002, 0.001, kBusy, kBusy);
  CHECK(run.detector.findings().empty());
  // The storm starts 40 ms into the next poll: 60% of it paused, then fully.
  run.port.step(0, 0, 0, 0);
  run.port.tx_pause_s += 0.06;
  run.t_us += kPollUs;
  run.detector.observe(run.port.series(), run.t_us);
  const std::int64_t onset_ms = (run.t_us - 60'000) / 1000;
  run.poll(0, 1, 0, kBusy);
  const Finding* storm = run.find(kStormFromNic);
  REQUIRE(storm != nullptr);
  CHECK(storm->state == FindingState::firing);
  CHECK(storm->active_since == onset_ms);                  // back-dated to the exact onset
  CHECK(storm->fired_at - storm->active_since == 160);     // 60 ms + one 100 ms poll
  CHECK(label_value(storm->labels, "direction") == "tx");  // as the rule's expression keeps
  CHECK(label_value(storm->labels, "priority") == "3");
  CHECK(label_value(storm->labels, "severity") == "critical");
  CHECK(is_fast_finding(*storm));
  CHECK(run.find(kPushback) == nullptr);
  CHECK(run.find(kDeadlock) == nullptr);
}

TEST_CASE("Heavy pause with traffic moving is not a storm", "[fast][detector]") {
  Run run;
  // 95% paused both ways, and full pause as long as packets still flow: no stall.
  run.polls(50, 0.45, 0.95, kBusy, kBusy);
  run.polls(50, 0.3, 1.0, kBusy, kBusy);
  // Bursts of full pause shorter than a poll, with nothing moving during them.
  for (int i = 0; i < 30; ++i) {
    run.poll(0.4, 0.6, 0.4 * kBusy, kBusy);
    run.poll(0.2, 0.2, kBusy, kBusy);
  }
  CHECK(run.detector.findings().empty());
  CHECK(run.firings == 0);
}

TEST_CASE("The peer pausing us half the time for 500 ms is pushback", "[fast][detector]") {
  Run run;
  run.polls(10, 0.002, 0.001, kBusy, kBusy);
  run.polls(2, 0.7, 0.001, kBusy, 0.3 * kBusy);
  CHECK(run.find(kPushback) == nullptr);  // 200 of the window's 500 ms: under half paused
  run.polls(2, 0.7, 0.001, kBusy, 0.3 * kBusy);
  const Finding* pushback = run.find(kPushback);
  REQUIRE(pushback != nullptr);
  CHECK(pushback->state == FindingState::firing);
  CHECK(label_value(pushback->labels, "direction") == "rx");
  CHECK(pushback->severity == Severity::warning);
  CHECK(pushback->fired_at - pushback->active_since == 400);  // onset: the first paused poll
  CHECK(run.find(kStormFromNic) == nullptr);
}

TEST_CASE("Both directions frozen with no transitions is the deadlock signature",
          "[fast][detector]") {
  Run run;
  run.polls(10, 0.002, 0.001, kBusy, kBusy);
  run.polls(2, 1, 1, 0, 0, /*transitions=*/false);
  run.polls(5, 1, 1, 0, 0, /*transitions=*/false);  // the pushback window fills meanwhile
  const Finding* deadlock = run.find(kDeadlock);
  REQUIRE(deadlock != nullptr);
  CHECK(deadlock->state == FindingState::firing);
  CHECK(label_value(deadlock->labels, "confidence") == "suspected");
  // Not also a storm or pushback: the rules exclude those when both directions pause.
  CHECK(run.find(kStormFromNic) == nullptr);
  CHECK(run.find(kPushback) == nullptr);
  // When it breaks, the rx pause still filling the window is not pushback.
  run.polls(10, 0.002, 0.001, kBusy, kBusy);
  CHECK(run.find(kPushback) == nullptr);
  // Pause that still lifts (transitions counted) is not frozen.
  Run lifting;
  lifting.polls(10, 1, 1, 0, 0, /*transitions=*/true);
  CHECK(lifting.find(kDeadlock) == nullptr);
}

TEST_CASE("One storm is one finding until it has been clear for the restoration time",
          "[fast][detector]") {
  Run run;
  run.polls(5, 0.002, 0.001, kBusy, kBusy);
  // A storm whose pause flickers: full for 300 ms, off for 200 ms, ten times.
  for (int i = 0; i < 10; ++i) {
    run.polls(3, 0, 1, 0, kBusy);
    run.polls(2, 0, 0.1, kBusy, kBusy);
  }
  const Finding* storm = run.find(kStormFromNic);
  REQUIRE(storm != nullptr);
  CHECK(storm->state == FindingState::firing);
  CHECK(run.firings == 1);
  CHECK(run.resolutions == 0);
  // Clear, with traffic, for a second: resolved, once.
  run.polls(10, 0.002, 0.001, kBusy, kBusy);
  storm = run.find(kStormFromNic);
  REQUIRE(storm != nullptr);
  CHECK(storm->state == FindingState::resolved);
  CHECK(run.resolutions == 1);
  CHECK(run.firings == 1);
}

TEST_CASE("Pause stopped by the NIC's own storm watchdog is not recovery", "[fast][detector]") {
  Run run;
  run.port.storm_errors = 0;
  run.polls(5, 0.002, 0.001, kBusy, kBusy);
  run.polls(3, 0, 1, 0, kBusy);
  REQUIRE(run.find(kStormFromNic) != nullptr);
  // The watchdog fires and disables PFC TX: the pause stops, the host still receives nothing.
  *run.port.storm_errors += 1;
  run.polls(15, 0, 0, 0, kBusy);
  const Finding* watchdog = run.find(kWatchdogError);
  REQUIRE(watchdog != nullptr);
  CHECK(watchdog->state == FindingState::firing);
  const Finding* storm = run.find(kStormFromNic);
  REQUIRE(storm != nullptr);
  CHECK(storm->state == FindingState::firing);  // 1.5 s without pause: still the same incident
  // Quiet long enough (5 s), it resolves, once.
  run.polls(40, 0, 0, 0, kBusy);
  storm = run.find(kStormFromNic);
  REQUIRE(storm != nullptr);
  CHECK(storm->state == FindingState::resolved);
  CHECK(run.firings == 2);  // the storm and the watchdog, one each
}

TEST_CASE("A link flap is not a storm", "[fast][detector]") {
  Run run;
  run.polls(10, 0.002, 0.001, kBusy, kBusy);
  // Link down: nothing moves, not even the pause counters.
  run.polls(30, 0, 0, 0, 0);
  // The link comes back with its port counters reset.
  run.port = Port{};
  run.polls(1, 0.002, 0.001, kBusy, kBusy);
  run.polls(20, 0.002, 0.001, kBusy, kBusy);
  CHECK(run.detector.findings().empty());
}

TEST_CASE("Frames only: the paused time is an estimate and the finding says so",
          "[fast][detector]") {
  Run run;
  run.port.durations = false;
  run.port.packets = false;
  run.polls(10, 0.002, 0.001, 0, 0);
  run.polls(2, 0, 1, 0, 0);
  const Finding* storm = run.find(kStormFromNic);
  REQUIRE(storm != nullptr);
  CHECK(annotation(*storm, "pause_measure") == "estimated from frames x quanta");
  CHECK(annotation(*storm, "description").find("estimated from pause frames") != std::string::npos);
}

TEST_CASE("Without per-priority pause counters the detector finds nothing", "[fast][detector]") {
  PfcFastDetector detector;
  std::vector<Series> only_packets;
  add_series(only_packets, "rdma_priority_packets_total",
             {{"device", "rxe0"}, {"direction", "rx"}, {"port", "1"}, {"priority", "3"}},
             SeriesKind::counter, 0, "test");
  for (int i = 1; i <= 20; ++i) {
    CHECK_FALSE(detector.observe(only_packets, kStartUs + i * kPollUs));
  }
  CHECK(detector.findings().empty());
}

TEST_CASE("A fast finding stands for the rule's finding of the same incident", "[fast][detector]") {
  Finding slow;
  slow.rule = kStormFromNic;
  slow.labels = {
      {"alertname", kStormFromNic}, {"device", "mlx5_0"}, {"port", "1"}, {"priority", "3"}};
  slow.state = FindingState::pending;
  Finding fast = slow;
  fast.state = FindingState::firing;
  fast.annotations = {{kDetectorAnnotation, kFastDetector}};
  auto merged = merge_findings({slow}, {fast});
  REQUIRE(merged.size() == 1);
  CHECK(is_fast_finding(merged[0]));
  CHECK(merged[0].state == FindingState::firing);
  // Once the fast one resolved, a rule finding still firing over its 1-minute window stands.
  fast.state = FindingState::resolved;
  slow.state = FindingState::firing;
  merged = merge_findings({slow}, {fast});
  REQUIRE(merged.size() == 1);
  CHECK_FALSE(is_fast_finding(merged[0]));
  // Another priority is another incident.
  fast.labels[3].second = "4";
  CHECK(merge_findings({slow}, {fast}).size() == 2);
}
