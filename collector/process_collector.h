// The exporter's own process metrics (collector/model/process_metrics.h), read from procfs:
// prometheus-cpp has no process collector, and fleets alert on these for every exporter ("is
// the monitoring agent itself the load?"). An input like the others: the exporter is handed a
// ProcessReader (cli/exporter_command.cpp), it never reads /proc itself.
#pragma once

#include "collector/model/process_metrics.h"
#include "collector/source/file_source.h"

namespace rdmatop {

/// Reads /proc/self/stat, /proc/stat (boot time) and /proc/self/fd through `proc` (rooted at
/// /proc). Errors name the file; the caller serves no process_* series then, never zeros.
Result<ProcessMetrics> read_process_metrics(const FileSource& proc);

/// A ProcessReader over the host's /proc.
ProcessReader host_process_reader();

}  // namespace rdmatop
