// Hand-built probe samples for the tests of the probe surfaces (normalizer, exporter, report,
// TUI): one stream with a small histogram, filled like the prober fills it.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "collector/model/snapshot.h"
#include "collector/normalize/normalizer.h"
#include "pipeline/tick.h"

namespace rdmatop::test {

/// A stream with `answered` of `sent` probes answered; the histogram's three buckets (10 µs,
/// 100 µs, 1 ms) hold 50%, 90% and 100% of the answers.
inline ProbeTargetSample probe_stream(std::string target, std::string transport, std::uint64_t sent,
                                      std::uint64_t answered) {
  ProbeTargetSample p;
  p.target = std::move(target);
  p.transport = std::move(transport);
  p.local_device = p.transport == "tcp" ? "" : "mlx5_0";
  p.connected = true;
  p.sent = sent;
  p.answered = answered;
  p.timed_out = sent - answered;
  p.bucket_upper_seconds = {1e-5, 1e-4, 1e-3};
  p.bucket_counts = {answered / 2, answered * 9 / 10, answered};
  p.rtt_sum_seconds = static_cast<double>(answered) * 2e-5;
  return p;
}

/// Three streams: rc_send to 10.0.0.2 losing `sent - answered` with its TCP baseline, and a
/// rc_write stream to 10.0.0.9 that cannot connect; plus the prober's cost.
inline Snapshot probed_snapshot(std::uint64_t sent, std::uint64_t answered,
                                std::chrono::seconds at) {
  Snapshot snap;
  snap.taken = std::chrono::steady_clock::time_point(at);
  ProbeTargetSample rc = test::probe_stream("10.0.0.2", "rc_send", sent, answered);
  rc.traffic_class = 106;
  rc.window = RttSummary{answered, 2e-6, 3e-6, 4e-6, 8e-6, 9e-6, 2.5e-3};
  rc.retransmits = sent - answered;
  rc.retransmit_scope = "qp";
  rc.wc_errors = {{"transport retry counter exceeded", 2}};
  rc.qp_errors = 2;
  snap.probes.push_back(rc);
  ProbeTargetSample tcp = test::probe_stream("10.0.0.2", "tcp", sent, sent);
  tcp.window = RttSummary{sent, 20e-6, 30e-6, 40e-6, 50e-6, 60e-6, 70e-6};
  snap.probes.push_back(tcp);
  ProbeTargetSample down = test::probe_stream("10.0.0.9", "rc_write", 0, 0);
  down.connected = false;
  down.connect_failures = 4;
  down.last_error = "rdma_resolve_route: No route to host";
  snap.probes.push_back(down);
  snap.prober = ProberCost{0.25, 2, 131072, 2};
  return snap;
}

/// Two ticks 10 s apart: 100 probes answered, then 90 of the next 100.
inline PublishedTick two_probe_ticks() {
  const Observation first = make_observation(probed_snapshot(100, 100, std::chrono::seconds(10)));
  return build_tick(&first, make_observation(probed_snapshot(200, 190, std::chrono::seconds(20))));
}

}  // namespace rdmatop::test
