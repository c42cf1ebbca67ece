// collect_rdma_processes: who holds RDMA objects (host readiness). The QP, CQ, MR and PD
// dumps of RDMA netlink name each object's owner: a PID for user space, a name for kernel users
// (nldev.c fill_res_name_pid). Each user process is then read from procfs: its name
// (/proc/<pid>/comm), its RLIMIT_MEMLOCK (/proc/<pid>/limits), its pinned memory, CAP_IPC_LOCK
// and allowed CPUs (/proc/<pid>/status), the CPUs mapped to NUMA nodes through sysfs
// devices/system/node/node<N>/cpulist.
//
// PIDs are those of the PID namespace rdmatop runs in (task_pid_vnr), so --procfs-root must be
// a procfs of that namespace; a process the kernel cannot name there shows as PID 0 without a
// name. Statuses, source "rdma-processes":
//  * <device>: the four dumps of that device. A kernel without one of them (EINVAL for an
//    unknown command, core/netlink.c, or EOPNOTSUPP) is noted and stays ok; other failures are
//    errors, and the other dumps still count.
//  * "" (host-wide): the procfs reads. Fields that could not be read stay absent and are
//    summed up in the note: a process that exited between the dump and the read (ENOENT), a
//    file closed to us (EACCES with hidepid=), a malformed file. Never an error: the dumps
//    already said who uses RDMA.
// Nothing is read (and no status recorded) without RDMA netlink, i.e. off the live host.
#include <algorithm>
#include <array>
#include <cerrno>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "collector/collect.h"
#include "collector/parse/procfs_process_parse.h"
#include "collector/parse/sysfs_parse.h"

namespace rdmatop {
namespace {

constexpr const char* kProcessSource = "rdma-processes";
constexpr std::array<NldevResKind, 4> kKinds{NldevResKind::qp, NldevResKind::cq, NldevResKind::mr,
                                             NldevResKind::pd};

using Owners = std::map<std::pair<std::uint32_t, std::string>, RdmaProcess>;

std::map<std::string, std::uint32_t, std::less<>>& counts_of(RdmaProcess& p, NldevResKind kind) {
  switch (kind) {
    case NldevResKind::qp:
      return p.qps;
    case NldevResKind::cq:
      return p.cqs;
    case NldevResKind::mr:
      return p.mrs;
    case NldevResKind::pd:
      break;
  }
  return p.pds;
}

/// The four dumps of one device, added to `owners`; its status.
SourceStatus read_device(RdmaNetlinkSource& netlink, const NldevDevice& device, Owners& owners) {
  StatusTimer timer(kProcessSource, device.name);
  std::string note;
  SourceState state = SourceState::ok;
  for (const NldevResKind kind : kKinds) {
    auto list = netlink.resource_owners(kind, device.index);
    if (!list) {
      const bool unsupported = list.error().code == EINVAL || list.error().code == EOPNOTSUPP;
      append_note(note,
                  (unsupported ? "not supported by this kernel: " : "") + list.error().message);
      if (!unsupported) state = SourceState::error;
      continue;
    }
    for (const NldevResOwner& o : *list) {
      // A kernel user is shown like ps shows kernel threads; PID 0 without a name is a process
      // outside our PID namespace.
      auto key = o.pid ? std::pair{*o.pid, std::string()} : std::pair{0U, "[" + o.kern_name + "]"};
      RdmaProcess& p = owners[key];
      p.pid = key.first;
      p.comm = key.second;
      ++counts_of(p, kind)[device.name];
    }
  }
  return timer.finish(state, std::move(note));
}

/// CPU -> NUMA node from devices/system/node/node<N>/cpulist; empty without NUMA information.
std::map<std::uint32_t, std::int32_t> cpu_nodes(const FileSource& sysfs) {
  std::map<std::uint32_t, std::int32_t> out;
  auto names = sysfs.list_static("devices/system/node");
  if (!names) return out;
  for (const std::string& name : **names) {
    if (!name.starts_with("node")) continue;
    auto node = parse_index_name(std::string_view(name).substr(4));
    if (!node) continue;
    auto text = sysfs.read_static("devices/system/node/" + name + "/cpulist");
    if (!text) continue;
    auto cpus = parse_cpu_list(*text);
    if (!cpus) continue;
    for (const std::uint32_t cpu : *cpus) out[cpu] = static_cast<std::int32_t>(*node);
  }
  return out;
}

/// Counts of fields that could not be read, by "file: reason", for the host-wide note.
using Unreadable = std::map<std::string, unsigned>;

void note_failure(Unreadable& unreadable, const char* file, const Error& e) {
  const std::string reason = e.code == ENOENT   ? "process exited"
                             : e.code == EACCES ? "permission denied"
                                                : e.message;
  ++unreadable[std::string(file) + ": " + reason];
}

/// Fills `p` from /proc/<pid>; the thread's process (Tgid) when the status file said.
std::optional<std::uint32_t> read_procfs(const FileSource& procfs,
                                         const std::map<std::uint32_t, std::int32_t>& nodes,
                                         RdmaProcess& p, Unreadable& unreadable) {
  const std::string dir = std::to_string(p.pid) + "/";
  auto comm = procfs.read(dir + "comm");
  if (!comm) {
    note_failure(unreadable, "comm", comm.error());
    // Gone: its objects are being released; the other files are gone too.
    if (comm.error().code == ENOENT) return std::nullopt;
  } else if (auto name = parse_text_attribute(*comm); name) {
    p.comm = *name;
  } else {
    note_failure(unreadable, "comm", name.error());
  }
  auto limits = procfs.read(dir + "limits");
  auto memlock =
      limits ? parse_proc_limits_memlock(*limits) : Result<ResourceLimit>(limits.error());
  if (memlock) {
    p.memlock_soft_bytes = memlock->soft;
    p.memlock_unlimited = !memlock->soft.has_value();
  } else {
    note_failure(unreadable, "limits", memlock.error());
  }
  auto text = procfs.read(dir + "status");
  auto status = text ? parse_proc_status(*text) : Result<ProcStatus>(text.error());
  if (!status) {
    note_failure(unreadable, "status", status.error());
    return std::nullopt;
  }
  p.pinned_bytes = status->pinned_bytes;
  if (status->cap_effective) p.cap_ipc_lock = ((*status->cap_effective >> kCapIpcLock) & 1U) != 0;
  if (status->cpus && !nodes.empty()) {
    for (const std::uint32_t cpu : *status->cpus) {
      const auto it = nodes.find(cpu);
      if (it != nodes.end()) p.cpu_numa_nodes.push_back(it->second);
    }
    std::sort(p.cpu_numa_nodes.begin(), p.cpu_numa_nodes.end());
    p.cpu_numa_nodes.erase(std::unique(p.cpu_numa_nodes.begin(), p.cpu_numa_nodes.end()),
                           p.cpu_numa_nodes.end());
  }
  return status->tgid;
}

void add_counts(std::map<std::string, std::uint32_t, std::less<>>& into,
                const std::map<std::string, std::uint32_t, std::less<>>& from) {
  for (const auto& [device, n] : from) into[device] += n;
}

/// Moves the objects of thread `t` into its process `into`: counts add up, the CPUs it may run
/// on join the process's (affinity is per thread).
void fold_thread(RdmaProcess& into, const RdmaProcess& t) {
  add_counts(into.qps, t.qps);
  add_counts(into.cqs, t.cqs);
  add_counts(into.mrs, t.mrs);
  add_counts(into.pds, t.pds);
  std::vector<std::int32_t> nodes;
  std::set_union(into.cpu_numa_nodes.begin(), into.cpu_numa_nodes.end(), t.cpu_numa_nodes.begin(),
                 t.cpu_numa_nodes.end(), std::back_inserter(nodes));
  into.cpu_numa_nodes = std::move(nodes);
}

}  // namespace

ThreadProcesses collect_rdma_processes(const CollectContext& ctx, Snapshot& out,
                                       const RdmaDeviceList& devices) {
  ThreadProcesses folded;
  if (ctx.netlink == nullptr) return folded;
  StatusTimer host_timer(kProcessSource, "");
  if (!devices) {
    // The "netlink" status already says why; here it only means "nothing to report".
    out.sources.push_back(host_timer.finish(SourceState::no_data, devices.error().message));
    return folded;
  }
  Owners owners;
  for (const NldevDevice& device : *devices) {
    if (ctx.filter.accepts(device.name)) {
      out.sources.push_back(read_device(*ctx.netlink, device, owners));
    }
  }
  std::string note;
  if (ctx.procfs == nullptr) {
    note = "names, limits and CPUs not read: no procfs root";
  } else if (!owners.empty()) {
    const auto nodes = cpu_nodes(ctx.sysfs);
    Unreadable unreadable;
    for (auto& [key, process] : owners) {
      if (process.pid == 0) continue;
      const auto tgid = read_procfs(*ctx.procfs, nodes, process, unreadable);
      if (tgid && *tgid != process.pid) folded[process.pid] = *tgid;
    }
    // The kernel names the thread that created an object (restrack.c rdma_restrack_set_name:
    // current; nldev.c fill_res_name_pid: task_pid_vnr), so objects a worker thread made (a
    // communication library's proxy thread, rdmatop's own prober) come under that thread's ID,
    // which ps and kill do not know. They are folded into their process (Tgid): limits and
    // pinned memory are the process's anyway.
    for (const auto& [tid, tgid] : folded) {
      const auto thread = owners.extract({tid, std::string()});
      const auto [it, added] = owners.try_emplace({tgid, std::string()});
      RdmaProcess& process = it->second;
      if (added) {
        // Only threads of it own objects: the process's own name and limits.
        process.pid = tgid;
        read_procfs(*ctx.procfs, nodes, process, unreadable);
        process.cpu_numa_nodes.clear();
      }
      fold_thread(process, thread.mapped());
    }
    for (const auto& [what, n] : unreadable) {
      append_note(note, what + " (" + std::to_string(n) + (n == 1 ? " process)" : " processes)"));
    }
  }
  for (auto& [key, process] : owners) out.rdma_processes.push_back(std::move(process));
  // The map's (pid, name) order is the snapshot's "sorted by pid".
  out.sources.push_back(host_timer.finish(SourceState::ok, std::move(note)));
  return folded;
}

}  // namespace rdmatop
