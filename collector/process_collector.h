// The exporter's own process metrics (collector/model/process_metrics.h), read from procfs:
// prometheus-cpp has no process collector, and fleets alert on these for every exporter ("is
// the monitoring agent itself the load?"). An input like the others: the exporter is handed a
// ProcessReader (cli/exporter_command.cpp), it never reads /proc itself.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "collector/model/process_metrics.h"
#include "collector/source/file_source.h"

namespace rdmatop {

/// The number of open descriptors of the process whose `/proc/PID/fd` directory is `fd_dir`, from
/// one stat(2): since Linux 6.2 procfs reports it as the directory's size (fs/proc/fd.c
/// proc_fd_getattr, Documentation/filesystems/proc.rst). nullopt where the kernel reports no
/// size (older kernels say 0) or the stat fails: then the directory must be listed.
std::optional<std::size_t> open_fds_from_size(const std::string& fd_dir);

/// How read_process_metrics counts open descriptors before it lists self/fd: a function that
/// answers (open_fds_from_size) or says it cannot (nullopt). Empty: list the directory.
using OpenFdCounter = std::function<std::optional<std::size_t>()>;

/// The host's boot time, `btime` of /proc/stat (seconds since the epoch; proc(5)), through
/// `proc` (rooted at /proc).
Result<std::uint64_t> read_boot_time(const FileSource& proc);

/// Reads /proc/self/stat and /proc/self/fd through `proc` (rooted at /proc); the start time is
/// `boot_time` plus the process's start ticks. Errors name the file; the caller serves no
/// process_* series then, never zeros.
Result<ProcessMetrics> read_process_metrics(const FileSource& proc, std::uint64_t boot_time,
                                            const OpenFdCounter& count_open_fds = {});

/// A ProcessReader over the host's /proc. It reads /proc/stat until it has the boot time and
/// never again: the boot time is fixed while the host runs, and the file is long on a big host
/// (a line per CPU, a number per interrupt in `intr`), where it was read at every page. It holds
/// /proc/self/stat open and re-reads it (read_polled of a caching source). Thread-safe.
ProcessReader host_process_reader();

}  // namespace rdmatop
