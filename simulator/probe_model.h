// The simulated host's active probes: each RDMA port probes its peer over RC (SEND/RECV) and,
// as the baseline, over TCP, the way `rdmatop probe` does. Probes are not read from files (a
// prober is a process, not a sysfs tree), so the simulator fills Snapshot::probes itself from
// this model; everything downstream (normalizer, rules, outputs) is the real code. Pure
// arithmetic on the port conditions, like host_model.h (docs/scenarios.md, "Probes").
#pragma once

#include <vector>

#include "collector/model/snapshot.h"
#include "simulator/host_model.h"

namespace rdmatop::sim {

/// Probes per second of each simulated stream.
inline constexpr double kProbesPerSecond = 10;

/// Advances every port's probe streams by `dt_s` under its current conditions.
void advance_probes(HostModel& host, double dt_s);

/// The probe samples of the host now (the window is the last advance), sorted by (target,
/// transport, traffic class) as Snapshot::probes requires. Empty before the first advance.
std::vector<ProbeTargetSample> simulated_probes(const HostModel& host);

/// The simulated prober's footprint; nullopt before the first advance.
std::optional<ProberCost> simulated_prober_cost(const HostModel& host);

}  // namespace rdmatop::sim
