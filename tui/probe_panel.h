// The probe panel: one row per probe stream (target, transport, traffic class) with its window
// RTTs, loss, error and retransmit rates, coloured by the thresholds of the built-in probe rules
// (rules/builtin/probes.yaml), so the panel and the alerts agree on what is bad.
#pragma once

#include <string>
#include <vector>

#include "pipeline/tick.h"
#include "tui/view_model.h"

namespace rdmatop::tui {

/// RdmaProbeLoss fires above 1% loss; 10% is where most RC traffic stalls on retries.
inline constexpr double kProbeLossWarn = 0.01;
inline constexpr double kProbeLossCrit = 0.10;
/// RdmaProbeLatencySlo's default p99 objective for RDMA streams (seconds).
inline constexpr double kProbeP99Slo = 0.001;

const std::vector<std::string>& probe_columns();

/// Rows in Snapshot::probes order; empty when no prober ran.
std::vector<Row> probe_rows(const PublishedTick& report);

/// "PROBES 4 streams  prober: 2 targets, 2 QPs, 147.6 kB registered, 0.42 s CPU".
std::string probe_panel_title(const PublishedTick& report);

}  // namespace rdmatop::tui
