#include "exporters/report/readiness_section.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <optional>

#include "collector/normalize/process_series.h"
#include "present/host_config_json.h"
#include "present/json_util.h"
#include "present/text_table.h"
#include "present/units.h"

namespace rdmatop {
namespace {

using ojson = nlohmann::ordered_json;

/// The rate of the device's IRQ series for `irq`; nullopt unless it is known (ok or wrap).
std::optional<double> irq_rate(const PublishedTick& report, const std::string& device,
                               std::uint32_t irq) {
  for (const auto& s : report.host_series) {
    if (s.series.name != "rdma_irq_interrupts_total" ||
        label_value(s.series.labels, "device") != device ||
        label_value(s.series.labels, "irq") != std::to_string(irq)) {
      continue;
    }
    if (rate_has_value(s.rate)) {
      return s.rate.per_second;
    }
  }
  return std::nullopt;
}

std::optional<std::int32_t> device_numa_node(const Snapshot& snap, const std::string& device) {
  for (const DeviceSample& d : snap.devices) {
    if (d.name == device) return d.numa_node;
  }
  return std::nullopt;
}

/// The devices the process holds objects on, each with its counts (qp, cq, mr, pd; nullopt =
/// none of that kind).
struct DeviceUse {
  std::array<std::optional<std::uint32_t>, 4> counts;
};

std::map<std::string, DeviceUse, std::less<>> uses_of(const RdmaProcess& p) {
  std::map<std::string, DeviceUse, std::less<>> out;
  const std::array kinds{&p.qps, &p.cqs, &p.mrs, &p.pds};
  for (std::size_t k = 0; k < kinds.size(); ++k) {
    for (const auto& [device, n] : *kinds[k]) out[device].counts.at(k) = n;
  }
  return out;
}

std::string memlock_text(const RdmaProcess& p) {
  if (p.memlock_unlimited) return "unlimited";
  return p.memlock_soft_bytes ? format_bytes_iec(static_cast<double>(*p.memlock_soft_bytes)) : "-";
}

std::string nodes_text(const std::vector<std::int32_t>& nodes) {
  if (nodes.empty()) return "-";
  std::string out;
  for (const std::int32_t n : nodes) out += (out.empty() ? "" : ",") + std::to_string(n);
  return out;
}

/// The host-wide status of the process collector; nullptr when it did not run (not the live
/// host).
const SourceStatus* processes_status(const Snapshot& snap) {
  const auto it = std::find_if(snap.sources.begin(), snap.sources.end(), [](const SourceStatus& s) {
    return s.source == "rdma-processes" && s.target.empty();
  });
  return it == snap.sources.end() ? nullptr : &*it;
}

std::string processes_text(const PublishedTick& report) {
  const Snapshot& snap = report.snapshot;
  if (snap.rdma_processes.empty()) {
    const SourceStatus* status = processes_status(snap);
    if (status == nullptr) return "";
    if (status->state != SourceState::ok) {
      return "  RDMA processes: not read (" + status->message + ")\n";
    }
    return "  RDMA processes: none holds RDMA objects\n";
  }
  TextTable table({"PID", "COMM", "DEVICE", "QP", "CQ", "MR", "PD", "MEMLOCK", "PINNED",
                   "CPU NODES", "NIC NODE"});
  const auto count = [](const std::optional<std::uint32_t>& n) {
    return n ? std::to_string(*n) : "-";
  };
  for (const RdmaProcess& p : snap.rdma_processes) {
    const bool user = p.pid != 0;
    for (const auto& [device, use] : uses_of(p)) {
      const auto node = device_numa_node(snap, device);
      const auto placement = numa_placement(p, node);
      std::string nic = node ? std::to_string(*node) : "-";
      if (placement) nic += fmt::format(" ({})", to_string(*placement));
      table.add_row(
          {std::to_string(p.pid), p.comm.empty() ? "-" : p.comm, device, count(use.counts[0]),
           count(use.counts[1]), count(use.counts[2]), count(use.counts[3]),
           user ? memlock_text(p) : "-",
           user && p.pinned_bytes ? format_bytes_iec(static_cast<double>(*p.pinned_bytes)) : "-",
           nodes_text(p.cpu_numa_nodes), nic});
    }
  }
  return "  RDMA processes:\n" + table.render("    ");
}

}  // namespace

std::string render_readiness_text(const PublishedTick& report) {
  std::string out;
  for (const DeviceSample& dev : report.snapshot.devices) {
    if (dev.pci_address.empty()) continue;
    out += fmt::format("  {} ({}): NUMA node {}, {} interrupt vectors\n", dev.name, dev.pci_address,
                       dev.numa_node ? std::to_string(*dev.numa_node) : "-",
                       dev.irqs.empty() ? "-" : std::to_string(dev.irqs.size()));
    if (dev.irqs.empty()) continue;
    TextTable table({"IRQ", "NAME", "INTERRUPTS", "PER SECOND"});
    for (const IrqSample& irq : dev.irqs) {
      const auto rate = irq_rate(report, dev.name, irq.irq);
      table.add_row({std::to_string(irq.irq), irq.name, std::to_string(irq.count),
                     rate ? fmt::format("{:.1f}", *rate) : "-"});
    }
    out += table.render("    ");
  }
  return (out.empty() ? "  no PCI RDMA devices\n" : out) + processes_text(report);
}

ojson render_readiness_json(const PublishedTick& report) {
  ojson devices = ojson::array();
  for (const DeviceSample& dev : report.snapshot.devices) {
    if (dev.pci_address.empty()) continue;
    ojson irqs = ojson::array();
    for (const IrqSample& irq : dev.irqs) {
      irqs.push_back({{"irq", irq.irq},
                      {"name", irq.name},
                      {"count", irq.count},
                      {"per_second", optional_json(irq_rate(report, dev.name, irq.irq))}});
    }
    devices.push_back({{"device", dev.name},
                       {"pci_address", dev.pci_address},
                       {"numa_node", optional_json(dev.numa_node)},
                       {"irqs", std::move(irqs)}});
  }
  ojson processes = ojson::array();
  for (const RdmaProcess& p : report.snapshot.rdma_processes) {
    ojson placement = ojson::object();
    for (const auto& [device, use] : uses_of(p)) {
      const auto where = numa_placement(p, device_numa_node(report.snapshot, device));
      placement[device] = where ? ojson(to_string(*where)) : ojson(nullptr);
    }
    ojson process = rdma_process_json(p);
    process["numa_placement"] = std::move(placement);
    processes.push_back(std::move(process));
  }
  return {{"devices", std::move(devices)}, {"processes", std::move(processes)}};
}

}  // namespace rdmatop
