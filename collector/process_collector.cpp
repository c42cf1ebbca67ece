#include "collector/process_collector.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <memory>

#include "collector/parse/procfs_process_parse.h"
#include "collector/source/cached_file_source.h"

namespace rdmatop {

std::optional<std::size_t> open_fds_from_size(const std::string& fd_dir) {
  struct stat st {};
  if (::stat(fd_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_size <= 0) {
    return std::nullopt;
  }
  return static_cast<std::size_t>(st.st_size);
}

Result<std::uint64_t> read_boot_time(const FileSource& proc) {
  const auto system_text = proc.read("stat");
  if (!system_text) return system_text.error();
  return parse_proc_stat_boot_time(*system_text);
}

Result<ProcessMetrics> read_process_metrics(const FileSource& proc, std::uint64_t boot_time,
                                            const OpenFdCounter& count_open_fds) {
  // Polled: a caching source keeps it open and re-reads it (host_process_reader).
  const auto stat_text = proc.read_polled("self/stat");
  if (!stat_text) return stat_text.error();
  const auto stat = parse_proc_stat(*stat_text);
  if (!stat) return stat.error();

  // Clock ticks and page size as the kernel exports them to user space (proc(5)).
  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  const double page = static_cast<double>(sysconf(_SC_PAGESIZE));
  ProcessMetrics m;
  m.cpu_seconds = static_cast<double>(stat->utime_ticks + stat->stime_ticks) / ticks;
  m.resident_bytes = static_cast<double>(stat->rss_pages) * page;
  m.virtual_bytes = static_cast<double>(stat->vsize_bytes);
  m.start_time_seconds =
      static_cast<double>(boot_time) + static_cast<double>(stat->start_time_ticks) / ticks;
  // The exporter holds every polled counter file open (cached_file_source.h), ~2,000 on a
  // 16-port host: listing them made one dentry per descriptor on every page render, a tenth of
  // the exporter's CPU (bench/README.md, "Session 19: where the CPU time goes").
  if (const auto counted = count_open_fds ? count_open_fds() : std::nullopt) {
    m.open_fds = static_cast<double>(*counted);
  } else if (const auto fds = proc.list("self/fd")) {
    m.open_fds = static_cast<double>(fds->size());
  }
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0) m.max_fds = static_cast<double>(limit.rlim_cur);
  return m;
}

ProcessReader host_process_reader() {
  // /proc/self/stat is held open and re-read from offset 0, where procfs makes its text anew
  // (fs/seq_file.c seq_read_iter restarts at position 0): its openat and close were half of
  // what the process metrics cost each page (bench/README.md, "Session 27"). No read-ahead:
  // one file, read when a page is rendered.
  FileCacheOptions options;
  options.batch_reads = false;
  std::shared_ptr<const FileSource> proc = make_cached_file_source("/proc", std::move(options));
  // 0 until read: no host boots at the epoch. Atomic: a scrape may render the page on another
  // thread than the poll loop (the caching source locks its own reads).
  auto boot_time = std::make_shared<std::atomic<std::uint64_t>>(0);
  return [proc, boot_time]() -> Result<ProcessMetrics> {
    std::uint64_t boot = boot_time->load(std::memory_order_relaxed);
    if (boot == 0) {
      const auto read = read_boot_time(*proc);
      if (!read) return read.error();
      boot = *read;
      boot_time->store(boot, std::memory_order_relaxed);
    }
    return read_process_metrics(*proc, boot, [] { return open_fds_from_size("/proc/self/fd"); });
  };
}

}  // namespace rdmatop
