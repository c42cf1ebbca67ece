// Canonical series of the processes holding RDMA objects (Snapshot::rdma_processes): objects
// held per device, RLIMIT_MEMLOCK, pinned memory, CAP_IPC_LOCK, and where their CPUs sit
// relative to the device's NUMA node. Host-wide series labelled `pid` and `comm` (`device` where
// per device); their families are listed with the other host-configuration ones
// (host_config_series.h) and documented in docs/metrics.md.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "collector/model/snapshot.h"
#include "collector/normalize/series.h"

namespace rdmatop {

/// How a process's allowed CPUs sit relative to a device's NUMA node, the value of
/// rdma_process_numa_mismatch.
enum class NumaPlacement : std::uint8_t {
  local = 0,    ///< every allowed CPU is on the device's node
  partial = 1,  ///< some are elsewhere: the scheduler may run it remote
  remote = 2,   ///< none is on the device's node: every access to the NIC crosses nodes
};

/// "local", "partial", "remote" (the report's words).
const char* to_string(NumaPlacement placement);

/// nullopt when either side is unknown (no NUMA information, or the CPUs were not read).
std::optional<NumaPlacement> numa_placement(const RdmaProcess& process,
                                            std::optional<std::int32_t> device_node);

/// Appends the process series of `snapshot` (unsorted) to `out`. Kernel users (PID 0) get only
/// rdma_process_resources: limits and CPUs are a user process's.
void add_process_series(const Snapshot& snapshot, std::vector<Series>& out);

}  // namespace rdmatop
