#include "simulator/process_render.h"

#include <cstdio>
#include <string>

#include "collector/parse/procfs_process_parse.h"

namespace rdmatop::sim {

namespace {

constexpr std::uint32_t kCpus = kNumaNodes * kCpusPerNode;

std::string cpu_range(std::uint32_t first, std::uint32_t last) {
  return std::to_string(first) + "-" + std::to_string(last);
}

/// A process's allowed CPUs as a bit mask: "%*pb" prints nr_cpu_ids bits as hex in 32-bit
/// groups separated by commas; with 32 CPUs that is one group of 8 digits. The list was
/// checked when the scenario was parsed.
std::string cpu_mask(const std::string& list) {
  std::uint32_t mask = 0;
  if (auto cpus = parse_cpu_list(list)) {
    for (const std::uint32_t cpu : *cpus) {
      if (cpu < kCpus) mask |= 1U << cpu;
    }
  }
  char buf[16];
  std::snprintf(buf, sizeof buf, "%08x", mask);
  return buf;
}

/// fs/proc/base.c proc_pid_limits: a header, then one row per limit, "%-25s %-20s %-20s %-10s".
std::string limits_text(const SimProcess& p) {
  auto column = [](const std::optional<std::uint64_t>& v) {
    std::string text = v ? std::to_string(*v) : "unlimited";
    return text + std::string(text.size() < 20 ? 20 - text.size() : 0, ' ') + " ";
  };
  auto row = [&](const char* name, const std::optional<std::uint64_t>& soft,
                 const std::optional<std::uint64_t>& hard, const char* unit) {
    std::string line = name;
    line += std::string(25 - line.size(), ' ') + " " + column(soft) + column(hard);
    if (*unit != '\0') {
      std::string u = unit;
      line += u + std::string(u.size() < 10 ? 10 - u.size() : 0, ' ');
    }
    return line + "\n";
  };
  const std::optional<std::uint64_t> none;
  std::string out =
      "Limit                     Soft Limit           Hard Limit           Units     \n";
  out += row("Max cpu time", none, none, "seconds");
  out += row("Max file size", none, none, "bytes");
  out += row("Max data size", none, none, "bytes");
  out += row("Max stack size", 8388608, none, "bytes");
  out += row("Max core file size", 0, none, "bytes");
  out += row("Max resident set", none, none, "bytes");
  out += row("Max processes", 127431, 127431, "processes");
  out += row("Max open files", 1024, 524288, "files");
  out += row("Max locked memory", p.memlock_bytes, p.memlock_bytes, "bytes");
  out += row("Max address space", none, none, "bytes");
  out += row("Max file locks", none, none, "locks");
  out += row("Max pending signals", 127431, 127431, "signals");
  out += row("Max msgqueue size", 819200, 819200, "bytes");
  out += row("Max nice priority", 0, 0, "");
  out += row("Max realtime priority", 0, 0, "");
  out += row("Max realtime timeout", none, none, "us");
  return out;
}

/// task_mem's "%8lu kB" memory lines.
std::string kb(const char* name, std::uint64_t bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s:\t%8llu kB\n", name,
                static_cast<unsigned long long>(bytes / 1024));
  return buf;
}

/// fs/proc/array.c proc_pid_status (Linux 6.x line order), for a running user process.
std::string status_text(const SimProcess& p) {
  const std::string pid = std::to_string(p.pid);
  const std::string cpus = p.cpus.empty() ? cpu_range(0, kCpus - 1) : p.cpus;
  // CAP_IPC_LOCK is bit 14 (include/uapi/linux/capability.h).
  const char* cap_eff = p.cap_ipc_lock ? "0000000000004000" : "0000000000000000";
  std::string s = "Name:\t" + p.comm + "\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t" + pid +
                  "\nNgid:\t0\nPid:\t" + pid + "\nPPid:\t1\nTracerPid:\t0\n" +
                  "Uid:\t1000\t1000\t1000\t1000\nGid:\t1000\t1000\t1000\t1000\nFDSize:\t64\n" +
                  "Groups:\t1000 \nNStgid:\t" + pid + "\nNSpid:\t" + pid + "\nNSpgid:\t" + pid +
                  "\nNSsid:\t" + pid + "\n";
  const std::uint64_t rss = 64ULL << 20;
  s += kb("VmPeak", 2 * rss) + kb("VmSize", 2 * rss) + kb("VmLck", 0) +
       kb("VmPin", p.pinned_bytes) + kb("VmHWM", rss) + kb("VmRSS", rss) + kb("RssAnon", rss / 2) +
       kb("RssFile", rss / 2) + kb("RssShmem", 0) + kb("VmData", rss) + kb("VmStk", 132 << 10) +
       kb("VmExe", 1 << 20) + kb("VmLib", 8 << 20) + kb("VmPTE", 256 << 10) + kb("VmSwap", 0) +
       kb("HugetlbPages", 0);
  s += "CoreDumping:\t0\nTHP_enabled:\t1\nThreads:\t4\nSigQ:\t0/127431\n";
  s += "SigPnd:\t0000000000000000\nShdPnd:\t0000000000000000\nSigBlk:\t0000000000000000\n";
  s += "SigIgn:\t0000000000001000\nSigCgt:\t0000000180000000\n";
  s += "CapInh:\t0000000000000000\n";
  s += std::string("CapPrm:\t") + cap_eff + "\nCapEff:\t" + cap_eff + "\n";
  s += "CapBnd:\t000001ffffffffff\nCapAmb:\t0000000000000000\n";
  s += "NoNewPrivs:\t0\nSeccomp:\t0\nSeccomp_filters:\t0\n";
  s += "Speculation_Store_Bypass:\tthread vulnerable\n";
  s += "SpeculationIndirectBranch:\tconditional enabled\n";
  s += "Cpus_allowed:\t" + cpu_mask(cpus) + "\nCpus_allowed_list:\t" + cpus + "\n";
  s += "Mems_allowed:\t00000000,00000003\nMems_allowed_list:\t" + cpu_range(0, kNumaNodes - 1) +
       "\n";
  s += "voluntary_ctxt_switches:\t1502\nnonvoluntary_ctxt_switches:\t37\n";
  return s;
}

}  // namespace

void render_processes(const HostModel& host, TreeImage& image) {
  const std::string nodes = "sys/devices/system/node/";
  image.files[nodes + "online"] = cpu_range(0, kNumaNodes - 1) + "\n";
  image.files[nodes + "possible"] = cpu_range(0, kNumaNodes - 1) + "\n";
  for (std::uint32_t n = 0; n < kNumaNodes; ++n) {
    image.files[nodes + "node" + std::to_string(n) + "/cpulist"] =
        cpu_range(n * kCpusPerNode, (n + 1) * kCpusPerNode - 1) + "\n";
  }
  for (const SimProcess& p : host.processes) {
    const std::string dir = "proc/" + std::to_string(p.pid) + "/";
    image.files[dir + "comm"] = p.comm + "\n";  // proc_comm_show: the name and a newline
    image.files[dir + "limits"] = limits_text(p);
    image.files[dir + "status"] = status_text(p);
  }
}

}  // namespace rdmatop::sim
