// collect_qp_counters: per-QP counters where counters are bound. For every port of the devices
// the filter accepts, two RDMA netlink requests, the ones iproute2 sends:
//  * `rdma statistic qp mode`: the port's QP counter mode (none, auto with its criteria,
//    manual), nldev.c stat_get_doit_qp;
//  * `rdma statistic qp show`: the counters bound to the port's QPs, each with its QPs, its mode,
//    the owning PID in auto mode by PID, and its hardware counters (fill_res_counter_entry).
// Only drivers with counter_alloc_stats/counter_bind_qp (mlx5) ever bind a QP; on the others
// the mode reads "none" and the dump is empty (core/counters.c alloc_and_bind), which is data,
// not a failure. The port's own hw_counters already include what its bound counters counted
// (stat_get_doit_default_counter adds rdma_counter_get_hwstat_value), so nothing is added up.
//
// Statuses, source "netlink-qp-counters", one per port ("mlx5_0/1"): a kernel that rejects
// the request (EOPNOTSUPP, EINVAL for a kernel without QP counters, ENOENT) is "no data" with
// its reason; any other failure is an error; neither touches the other sources. The owner's
// name comes from the processes read this tick (collect_rdma_processes runs first; a thread
// owner becomes its process as there), so nothing more is read from procfs. Nothing is read
// without RDMA netlink, i.e. off the live host.
#include <algorithm>
#include <cerrno>
#include <string>
#include <utility>

#include "collector/collect.h"

namespace rdmatop {
namespace {

constexpr const char* kQpCounterSource = "netlink-qp-counters";

bool unsupported(const Error& e) {
  return e.code == EOPNOTSUPP || e.code == EINVAL || e.code == ENOENT;
}

SourceStatus failure(const StatusTimer& timer, const Error& e) {
  if (unsupported(e)) return timer.finish(SourceState::no_data, "not supported: " + e.message);
  return timer.finish(SourceState::error, e.message);
}

PortSample* find_port(Snapshot& snap, const std::string& device, std::uint32_t port) {
  for (DeviceSample& d : snap.devices) {
    if (d.name != device) continue;
    for (PortSample& p : d.ports) {
      if (p.port == port) return &p;
    }
  }
  return nullptr;
}

std::string comm_of(const Snapshot& snap, std::uint32_t pid) {
  for (const RdmaProcess& p : snap.rdma_processes) {
    if (p.pid == pid) return p.comm;
  }
  return {};
}

SourceStatus read_port(RdmaNetlinkSource& netlink, const NldevDevice& device, PortSample& port,
                       const Snapshot& snap, const ThreadProcesses& threads) {
  StatusTimer timer(kQpCounterSource, device.name + "/" + std::to_string(port.port));
  auto mode = netlink.qp_counter_mode(device.index, port.port);
  if (!mode) return failure(timer, mode.error());
  port.qp_counter_mode = mode->mode;
  auto bound = netlink.bound_counters(device.index, port.port);
  if (!bound) return failure(timer, bound.error());
  for (NldevBoundCounter& b : bound.value()) {
    // The kernel filters by port (fill_res_counter_entry); a stray entry is not this port's.
    if (b.port != port.port) continue;
    if (b.counter.pid && *b.counter.pid != 0) {
      // Auto mode by PID gives the counter its QP's owner (counters.c alloc_and_bind:
      // rdma_restrack_parent_name), a thread like in the resource dumps: the owner is its
      // process, as in the process view.
      if (const auto t = threads.find(*b.counter.pid); t != threads.end()) {
        b.counter.pid = t->second;
      }
      b.counter.comm = comm_of(snap, *b.counter.pid);
    }
    port.bound_counters.push_back(std::move(b.counter));
  }
  std::sort(port.bound_counters.begin(), port.bound_counters.end(),
            [](const BoundCounter& a, const BoundCounter& b) { return a.id < b.id; });
  return timer.finish(SourceState::ok);
}

}  // namespace

void collect_qp_counters(const CollectContext& ctx, Snapshot& out, const RdmaDeviceList& devices,
                         const ThreadProcesses& threads) {
  if (ctx.netlink == nullptr) return;
  if (!devices) {
    // The "netlink" status already says why; here it only means "nothing to report".
    out.sources.push_back(
        StatusTimer(kQpCounterSource, "").finish(SourceState::no_data, devices.error().message));
    return;
  }
  for (const NldevDevice& device : *devices) {
    if (!ctx.filter.accepts(device.name)) continue;
    for (std::uint32_t port = 1; port <= device.port_count; ++port) {
      // Only ports the sysfs walk found: the snapshot has nowhere else to put them.
      if (PortSample* sample = find_port(out, device.name, port)) {
        out.sources.push_back(read_port(*ctx.netlink, device, *sample, out, threads));
      }
    }
  }
}

}  // namespace rdmatop
