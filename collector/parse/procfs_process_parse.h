// Parsers for the per-process procfs files rdmatop reads about processes that hold RDMA
// resources (host readiness): /proc/<pid>/limits, /proc/<pid>/status, and the CPU lists of
// status and of sysfs NUMA nodes. Pure functions over text; the reads are
// collector/rdma_process_collector.cpp's.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "collector/model/result.h"

namespace rdmatop {

/// One resource limit's soft and hard values; nullopt = "unlimited" (RLIM_INFINITY).
struct ResourceLimit {
  std::optional<std::uint64_t> soft;
  std::optional<std::uint64_t> hard;

  bool operator==(const ResourceLimit&) const = default;
};

/// The "Max locked memory" row (RLIMIT_MEMLOCK, in bytes) of /proc/<pid>/limits. The kernel
/// prints a header and one row per limit: the name left-aligned in 25 columns, then soft, hard
/// and units, each "unlimited" or a decimal (fs/proc/base.c proc_pid_limits).
/// Errors: EPROTO when the row is missing, its values are not numbers or "unlimited", or its
/// unit is not "bytes".
Result<ResourceLimit> parse_proc_limits_memlock(std::string_view text);

/// The fields of /proc/<pid>/status rdmatop uses (fs/proc/array.c, task_mmu.c). Each is
/// nullopt when its line is absent: kernel threads have no VmPin, and old kernels lack lines.
struct ProcStatus {
  std::optional<std::uint32_t> tgid;               ///< "Tgid:\tN": the thread's process
  std::optional<std::uint64_t> pinned_bytes;       ///< "VmPin:\t  N kB" (mm->pinned_vm)
  std::optional<std::uint64_t> cap_effective;      ///< "CapEff:\t<16 hex digits>"
  std::optional<std::vector<std::uint32_t>> cpus;  ///< "Cpus_allowed_list:\t0-3,8"

  bool operator==(const ProcStatus&) const = default;
};

/// Errors: EPROTO when there is no "Name:" line (not a status file) or a field rdmatop reads is
/// malformed (a bad field is an error rather than a silent absence, so it gets noticed).
Result<ProcStatus> parse_proc_status(std::string_view text);

/// The fields of /proc/<pid>/stat the exporter's process_* self-metrics use (fs/proc/array.c
/// do_task_stat; field numbers of proc(5)).
struct ProcStat {
  std::uint64_t utime_ticks = 0;       ///< (14) user CPU time, clock ticks
  std::uint64_t stime_ticks = 0;       ///< (15) system CPU time, clock ticks
  std::uint64_t start_time_ticks = 0;  ///< (22) start time after boot, clock ticks
  std::uint64_t vsize_bytes = 0;       ///< (23) virtual memory size
  std::uint64_t rss_pages = 0;         ///< (24) resident set size, pages

  bool operator==(const ProcStat&) const = default;
};

/// Errors: EPROTO when the line has no "(comm)" or too few fields, or a field used is not a
/// number. The command name may hold spaces and parentheses: fields start after the last ')'.
Result<ProcStat> parse_proc_stat(std::string_view text);

/// The "btime N" line of /proc/stat: boot time in Unix seconds (fs/proc/stat.c show_stat).
/// Errors: EPROTO when it is missing or not a number.
Result<std::uint64_t> parse_proc_stat_boot_time(std::string_view text);

/// The kernel's CPU list format ("%*pbl": "0-3,8,10-11", "" for none, trailing newline allowed)
/// as sorted CPU numbers. Errors: EPROTO for anything else, a range running backwards, or a CPU
/// number of kMaxCpus or more.
Result<std::vector<std::uint32_t>> parse_cpu_list(std::string_view text);

/// The largest NR_CPUS a kernel config allows (arch Kconfig: 8192), bounding parse_cpu_list.
inline constexpr std::uint32_t kMaxCpus = 8192;

/// CAP_IPC_LOCK (include/uapi/linux/capability.h): exempts a process from RLIMIT_MEMLOCK when
/// it pins memory for an RDMA registration (drivers/infiniband/core/umem.c ib_umem_get).
inline constexpr unsigned kCapIpcLock = 14;

}  // namespace rdmatop
