// Canonical series of the host configuration (host_config.h): devlink health reporters and
// firmware versions, DCB PFC configuration, the PFC storm-prevention tunable, and the host
// readiness facts (interrupt counts, NUMA placement, RLIMIT_MEMLOCK of RDMA processes). Not
// counter-table rows: they come from snapshot fields. docs/metrics.md documents every family; a
// unit test keeps the two in step.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "collector/model/snapshot.h"
#include "collector/normalize/series.h"

namespace rdmatop {

struct HostConfigMetricInfo {
  std::string_view name;
  SeriesKind kind = SeriesKind::gauge;
  std::string_view labels;  ///< labels beyond device (or port) scope
  std::string_view help;
};

/// Every host-configuration metric family, in documentation order.
std::span<const HostConfigMetricInfo> host_config_metric_infos();
/// The family of a series name, or nullptr when it is not a host-configuration series.
const HostConfigMetricInfo* find_host_config_metric(std::string_view series_name);

/// The PFC storm-prevention timeout the driver applies for a tunable value, in seconds:
/// 0 = disabled, 0xffff = auto (mlx5 uses 100 ms, MLX5E_PFC_PREVEN_AUTO_TOUT_MSEC).
double pfc_storm_prevention_seconds(std::uint16_t tunable_ms);

/// Appends the host-configuration series of `snapshot` (unsorted) to `out`.
void add_host_config_series(const Snapshot& snapshot, std::vector<Series>& out);

}  // namespace rdmatop
