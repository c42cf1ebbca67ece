// Canonical series of the active prober (Snapshot::probes, Snapshot::prober): per-stream
// counters, the RTT histogram in Prometheus layout, the window quantiles and the prober's own
// cost. Host-level: these series carry no device/port labels (scopes probe_stream and prober of
// the metric catalogue, metric_catalogue.h, which holds their kind, unit and help).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "collector/model/snapshot.h"
#include "collector/normalize/series.h"

namespace rdmatop {

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
