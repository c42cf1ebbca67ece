#include "collector/normalize/process_series.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

namespace rdmatop {
namespace {

/// The devices the process holds any object on.
std::vector<std::string> devices_of(const RdmaProcess& p) {
  std::vector<std::string> out;
  for (const auto* counts : {&p.qps, &p.cqs, &p.mrs, &p.pds}) {
    for (const auto& [device, n] : *counts) out.push_back(device);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

const char* to_string(NumaPlacement placement) {
  switch (placement) {
    case NumaPlacement::local:
      return "local";
    case NumaPlacement::partial:
      return "partial";
    case NumaPlacement::remote:
      break;
  }
  return "remote";
}

std::optional<NumaPlacement> numa_placement(const RdmaProcess& process,
                                            std::optional<std::int32_t> device_node) {
  if (!device_node || process.cpu_numa_nodes.empty()) return std::nullopt;
  const auto& nodes = process.cpu_numa_nodes;
  if (std::find(nodes.begin(), nodes.end(), *device_node) == nodes.end()) {
    return NumaPlacement::remote;
  }
  return nodes.size() == 1 ? NumaPlacement::local : NumaPlacement::partial;
}

void add_process_series(const Snapshot& snapshot, std::vector<Series>& out) {
  std::map<std::string, std::optional<std::int32_t>, std::less<>> device_nodes;
  for (const DeviceSample& d : snapshot.devices) device_nodes.emplace(d.name, d.numa_node);
  for (const RdmaProcess& p : snapshot.rdma_processes) {
    const Labels base{{"pid", std::to_string(p.pid)}, {"comm", p.comm}};
    const std::pair<const char*, const std::map<std::string, std::uint32_t, std::less<>>*> kinds[] =
        {{"qp", &p.qps}, {"cq", &p.cqs}, {"mr", &p.mrs}, {"pd", &p.pds}};
    for (const auto& [resource, counts] : kinds) {
      for (const auto& [device, n] : *counts) {
        Labels labels = base;
        labels.emplace_back("device", device);
        labels.emplace_back("resource", resource);
        add_series(out, "rdma_process_resources", std::move(labels), SeriesKind::gauge, n,
                   "netlink/res");
      }
    }
    if (p.pid == 0) continue;
    if (p.memlock_soft_bytes) {
      add_series(out, "rdma_process_memlock_limit_bytes", base, SeriesKind::gauge,
                 static_cast<double>(*p.memlock_soft_bytes), "procfs/limits");
    }
    if (p.memlock_soft_bytes || p.memlock_unlimited) {
      add_series(out, "rdma_process_memlock_unlimited", base, SeriesKind::gauge,
                 p.memlock_unlimited ? 1 : 0, "procfs/limits");
    }
    if (p.pinned_bytes) {
      add_series(out, "rdma_process_pinned_bytes", base, SeriesKind::gauge,
                 static_cast<double>(*p.pinned_bytes), "procfs/status");
    }
    if (p.cap_ipc_lock) {
      add_series(out, "rdma_process_cap_ipc_lock", base, SeriesKind::gauge, *p.cap_ipc_lock ? 1 : 0,
                 "procfs/status");
    }
    for (const std::string& device : devices_of(p)) {
      const auto node = device_nodes.find(device);
      if (node == device_nodes.end()) continue;
      if (const auto placement = numa_placement(p, node->second)) {
        Labels labels = base;
        labels.emplace_back("device", device);
        add_series(out, "rdma_process_numa_mismatch", std::move(labels), SeriesKind::gauge,
                   static_cast<double>(*placement), "procfs/status+sysfs/numa_node");
      }
    }
  }
}

}  // namespace rdmatop
