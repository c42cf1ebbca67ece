// Canonical series of the active prober (Snapshot::probes, Snapshot::prober): per-stream
// counters, the RTT histogram in Prometheus layout, the window quantiles and the prober's own
// cost. Host-level: these series carry no device/port labels, so they live in their own table
// (the counter table's series are per port). docs/metrics.md documents every row; a unit test
// keeps the two in step.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "collector/model/snapshot.h"
#include "collector/normalize/series.h"

namespace rdmatop {

enum class ProbeMetricType : std::uint8_t { counter, gauge, histogram };

/// One probe metric family. A histogram is emitted as the series `<name>_bucket{le}`,
/// `<name>_sum` and `<name>_count` (all counters), as Prometheus lays histograms out.
struct ProbeMetricInfo {
  std::string_view name;
  ProbeMetricType type = ProbeMetricType::counter;
  std::string_view unit;
  std::string_view labels;  ///< labels beyond the stream's (target, group, transport, tclass)
  std::string_view help;
};

/// Every probe metric family, in documentation order.
std::span<const ProbeMetricInfo> probe_metric_infos();

/// The family a series name belongs to ("rdma_probe_rtt_seconds_bucket" -> the histogram), or
/// nullptr when the name is not a probe series.
const ProbeMetricInfo* find_probe_metric(std::string_view series_name);

/// The label value Prometheus clients write for a bucket bound: shortest round-trip text,
/// "+Inf" for infinity.
std::string format_le(double upper_bound);

/// The stream labels of one probe sample: target, transport, and group / tclass when set
/// (an empty label is an absent label in Prometheus, so empty ones are omitted). Sorted.
Labels probe_stream_labels(const ProbeTargetSample& probe);

/// The scope label of a stream's retransmits: the prober's, "port" when it left it empty (a
/// count it could not attribute to its own QP is the port's).
std::string retransmit_scope(const ProbeTargetSample& probe);

/// Appends the probe series of `snapshot` (unsorted) to `out`. No prober: nothing.
void add_probe_series(const Snapshot& snapshot, std::vector<Series>& out);

}  // namespace rdmatop
