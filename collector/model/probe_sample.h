// What the active prober measured, per target, as part of the Snapshot.
//
// Counts are cumulative since the prober started (like kernel counters), so the usual rate
// function turns them into per-second rates and a restarted prober shows as a reset. The RTT
// histogram is cumulative too (Prometheus histogram semantics); the quantiles describe only the
// probes answered since the previous sample, which is what an operator watching a tick wants.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "collector/model/counter_map.h"

namespace rdmatop {

/// RTT quantiles over one sampling window, in seconds.
struct RttSummary {
  std::uint64_t count = 0;  ///< answered probes in the window (> 0 when present)
  double min = 0, p50 = 0, p90 = 0, p99 = 0, p999 = 0, max = 0;

  bool operator==(const RttSummary&) const = default;
};

/// One (target, transport, traffic class) probe stream.
struct ProbeTargetSample {
  std::string target;     ///< as configured: "10.0.0.2" or "10.0.0.2:18515"
  std::string group;      ///< pingmesh group ("tor-a", "pod-3"); empty when none
  std::string transport;  ///< "rc_send", "rc_write" or "tcp"
  std::optional<std::uint32_t> traffic_class;  ///< IPv4 TOS byte / GRH traffic class; none: default
  std::string local_device;                    ///< RDMA device used ("rxe0"); empty for TCP
  bool connected = false;                      ///< at the moment of the sample

  std::uint64_t sent = 0;
  std::uint64_t answered = 0;
  std::uint64_t timed_out = 0;
  std::uint64_t connect_failures = 0;  ///< resolve/route/connect/handshake failures
  std::uint64_t qp_errors = 0;         ///< QP moved to the error state (then reconnected)
  /// Work-completion errors by status name as ibv_wc_status_str() prints it
  /// ("transport retry counter exceeded", ...); absent statuses never happened.
  CounterMap wc_errors;
  std::string last_error;  ///< most recent failure with its cause; empty when none yet

  /// Cumulative RTT histogram: `bucket_upper_seconds[i]` is the upper bound (le) of bucket i,
  /// `bucket_counts[i]` counts answered probes with rtt <= that bound (cumulative, Prometheus
  /// style, +Inf implied by `answered`). Same bounds for every sample of a stream.
  std::vector<double> bucket_upper_seconds;
  std::vector<std::uint64_t> bucket_counts;
  double rtt_sum_seconds = 0;
  std::optional<RttSummary> window;  ///< none when nothing was answered in the window

  /// Transport retransmits attributed to this stream: counted on the probe's own QP counter
  /// when the driver supports per-QP counters (scope "qp"), else the port's counter delta over
  /// the probe's lifetime (scope "port", shared with all other traffic). Absent when unknown.
  std::optional<std::uint64_t> retransmits;
  std::string retransmit_scope;
  /// With scope "port" on an RC stream: why not "qp", e.g. "rxe0/1: driver cannot bind QP
  /// counters (ENOMEM)" (docs/probes.md); empty otherwise.
  std::string retransmit_note;

  bool operator==(const ProbeTargetSample&) const = default;
};

/// The prober's own footprint, so its cost is bounded and visible.
struct ProberCost {
  double cpu_seconds = 0;  ///< cumulative user+system CPU of the probe threads
  std::uint32_t qps = 0;   ///< QPs currently held
  std::uint64_t registered_bytes = 0;
  std::uint32_t targets = 0;

  bool operator==(const ProberCost&) const = default;
};

}  // namespace rdmatop
