#include "collector/normalize/host_config_series.h"

#include <algorithm>
#include <array>
#include <string>
#include <utility>

namespace rdmatop {
namespace {

constexpr std::array<HostConfigMetricInfo, 9> kInfos{{
    {"rdma_pfc_enabled", SeriesKind::gauge, "priority",
     "1 when PFC is enabled on the priority, else 0 (DCB pfc_en; mlx5 without DCB data: "
     "inferred from ethtool strings)"},
    {"rdma_pfc_storm_prevention_seconds", SeriesKind::gauge, "",
     "PFC storm-prevention timeout the driver applies (ethtool tunable pfc-prevention-tout); "
     "0 = disabled"},
    {"rdma_firmware_info", SeriesKind::gauge, "driver, running, stored",
     "1, with the running and (when the device reports one) stored firmware version from "
     "devlink"},
    {"rdma_firmware_activation_pending", SeriesKind::gauge, "",
     "1 when the stored (flashed) firmware differs from the running one, else 0"},
    {"rdma_devlink_health_error", SeriesKind::gauge, "reporter",
     "1 when the devlink health reporter is in the error state, else 0"},
    {"rdma_devlink_health_errors_total", SeriesKind::counter, "reporter",
     "errors the devlink health reporter has seen"},
    {"rdma_devlink_health_recovers_total", SeriesKind::counter, "reporter",
     "successful recoveries of the devlink health reporter"},
    {"rdma_device_numa_node", SeriesKind::gauge, "",
     "NUMA node of the RDMA device's PCI function (absent when the platform has none)"},
    {"rdma_irq_interrupts_total", SeriesKind::counter, "irq, name",
     "interrupts of one MSI/MSI-X vector of the RDMA NIC, summed over CPUs (/proc/interrupts)"},
}};

/// mlx5's value for PFC_STORM_PREVENTION_AUTO (roce-domain.md §5.1).
constexpr double kAutoSeconds = 0.1;
constexpr std::uint16_t kAuto = 0xffff;
constexpr double kMillisecondsPerSecond = 1e3;

Labels sorted(Labels labels) {
  std::sort(labels.begin(), labels.end());
  return labels;
}

void add(std::vector<Series>& out, std::string_view name, Labels labels, SeriesKind kind,
         double value, std::string origin) {
  out.push_back(
      Series{std::string(name), sorted(std::move(labels)), kind, value, 0, std::move(origin)});
}

const NetdevSample* find_netdev(const Snapshot& snapshot, const std::string& name) {
  if (name.empty()) return nullptr;
  const auto it = std::find_if(snapshot.netdevs.begin(), snapshot.netdevs.end(),
                               [&](const NetdevSample& n) { return n.name == name; });
  return it == snapshot.netdevs.end() ? nullptr : &*it;
}

void add_port_config(const DeviceSample& device, const PortSample& port, const NetdevSample& netdev,
                     std::vector<Series>& out) {
  const Labels base{
      {"device", device.name}, {"port", std::to_string(port.port)}, {"netdev", netdev.name}};
  if (netdev.dcb && netdev.dcb->pfc_enabled) {
    for (int p = 0; p < 8; ++p) {
      Labels labels = base;
      labels.emplace_back("priority", std::to_string(p));
      add(out, "rdma_pfc_enabled", std::move(labels), SeriesKind::gauge,
          (*netdev.dcb->pfc_enabled >> p) & 1U, "dcb/pfc_en");
    }
  }
  if (netdev.pfc_prevention_tout_ms) {
    add(out, "rdma_pfc_storm_prevention_seconds", base, SeriesKind::gauge,
        pfc_storm_prevention_seconds(*netdev.pfc_prevention_tout_ms),
        "ethtool/pfc-prevention-tout");
  }
}

void add_devlink(const DeviceSample& device, std::vector<Series>& out) {
  if (!device.devlink) return;
  const DevlinkInfo& info = *device.devlink;
  const auto running = info.running.find("fw.version");
  if (running != info.running.end()) {
    Labels labels{{"device", device.name}, {"driver", info.driver}, {"running", running->second}};
    const auto stored = info.stored.find("fw.version");
    if (stored != info.stored.end()) {
      labels.emplace_back("stored", stored->second);
      add(out, "rdma_firmware_activation_pending", {{"device", device.name}}, SeriesKind::gauge,
          stored->second != running->second ? 1 : 0, "devlink/info");
    }
    add(out, "rdma_firmware_info", std::move(labels), SeriesKind::gauge, 1, "devlink/info");
  }
  for (const auto& r : info.reporters) {
    const Labels labels{{"device", device.name}, {"reporter", r.name}};
    const std::string origin = "devlink/health/" + r.name;
    if (!r.state.empty()) {
      add(out, "rdma_devlink_health_error", labels, SeriesKind::gauge, r.state == "error" ? 1 : 0,
          origin);
    }
    if (r.error_count) {
      add(out, "rdma_devlink_health_errors_total", labels, SeriesKind::counter,
          static_cast<double>(*r.error_count), origin);
    }
    if (r.recover_count) {
      add(out, "rdma_devlink_health_recovers_total", labels, SeriesKind::counter,
          static_cast<double>(*r.recover_count), origin);
    }
  }
}

}  // namespace

std::span<const HostConfigMetricInfo> host_config_metric_infos() {
  return kInfos;
}

const HostConfigMetricInfo* find_host_config_metric(std::string_view series_name) {
  const auto it = std::find_if(kInfos.begin(), kInfos.end(), [&](const HostConfigMetricInfo& m) {
    return m.name == series_name;
  });
  return it == kInfos.end() ? nullptr : &*it;
}

double pfc_storm_prevention_seconds(std::uint16_t tunable_ms) {
  if (tunable_ms == kAuto) return kAutoSeconds;
  return tunable_ms / kMillisecondsPerSecond;
}

void add_host_config_series(const Snapshot& snapshot, std::vector<Series>& out) {
  for (const DeviceSample& device : snapshot.devices) {
    add_devlink(device, out);
    if (device.numa_node) {
      add(out, "rdma_device_numa_node", {{"device", device.name}}, SeriesKind::gauge,
          *device.numa_node, "sysfs/numa_node");
    }
    for (const IrqSample& irq : device.irqs) {
      add(out, "rdma_irq_interrupts_total",
          {{"device", device.name}, {"irq", std::to_string(irq.irq)}, {"name", irq.name}},
          SeriesKind::counter, static_cast<double>(irq.count), "procfs/interrupts");
    }
    for (const PortSample& port : device.ports) {
      if (const NetdevSample* netdev = find_netdev(snapshot, port.netdev)) {
        add_port_config(device, port, *netdev, out);
      }
    }
  }
}

}  // namespace rdmatop
