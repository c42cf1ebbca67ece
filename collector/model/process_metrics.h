// The exporter's own process, under the names every Prometheus client library uses
// (client_golang's process collector, prometheus/procfs): process_cpu_seconds_total,
// process_resident_memory_bytes, process_virtual_memory_bytes, process_open_fds,
// process_max_fds, process_start_time_seconds. Read by collector/process_collector.h.
#pragma once

#include <functional>
#include <optional>

#include "collector/model/result.h"

namespace rdmatop {

struct ProcessMetrics {
  double cpu_seconds = 0;
  double resident_bytes = 0;
  double virtual_bytes = 0;
  std::optional<double> open_fds;  ///< absent when /proc/self/fd cannot be listed
  double max_fds = 0;
  double start_time_seconds = 0;
};

/// Reads the calling process's metrics now; an error names the file that failed.
using ProcessReader = std::function<Result<ProcessMetrics>()>;

}  // namespace rdmatop
