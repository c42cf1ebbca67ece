// Canonical series of the host configuration (host_config.h): devlink health reporters and
// firmware versions, DCB PFC configuration, the PFC storm-prevention tunable, and the host
// readiness facts (interrupt counts, NUMA placement, RLIMIT_MEMLOCK of RDMA processes). Not
// counter-table rows: they come from snapshot fields. Their families are rows of the metric
// catalogue (metric_catalogue.h), like every other series.
#pragma once

#include <string_view>
#include <vector>

#include "collector/model/snapshot.h"
#include "collector/normalize/series.h"

namespace rdmatop {

/// The PFC storm-prevention timeout the driver applies for a tunable value, in seconds:
/// 0 = disabled, 0xffff = auto (mlx5 uses 100 ms, MLX5E_PFC_PREVEN_AUTO_TOUT_MSEC).
double pfc_storm_prevention_seconds(std::uint16_t tunable_ms);

/// Appends the host-configuration series of `snapshot` (unsorted) to `out`.
void add_host_config_series(const Snapshot& snapshot, std::vector<Series>& out);

}  // namespace rdmatop
