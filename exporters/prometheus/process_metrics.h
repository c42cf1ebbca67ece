// The exporter's own process metrics under the names every Prometheus client library uses
// (client_golang's process collector, prometheus/procfs): process_cpu_seconds_total,
// process_resident_memory_bytes, process_virtual_memory_bytes, process_open_fds,
// process_max_fds, process_start_time_seconds. prometheus-cpp has no process collector, and
// fleets alert on these for every exporter ("is the monitoring agent itself the load?").
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "collector/model/result.h"
#include "collector/source/file_source.h"

namespace rdmatop {

struct ProcessMetrics {
  double cpu_seconds = 0;
  double resident_bytes = 0;
  double virtual_bytes = 0;
  std::optional<double> open_fds;  ///< absent when /proc/self/fd cannot be listed
  double max_fds = 0;
  double start_time_seconds = 0;
};

/// Reads /proc/self/stat, /proc/stat (boot time) and /proc/self/fd through `proc` (rooted at
/// /proc). Errors name the file; the caller serves no process_* series then, never zeros.
Result<ProcessMetrics> read_process_metrics(const FileSource& proc);

}  // namespace rdmatop
