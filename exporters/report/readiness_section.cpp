#include "exporters/report/readiness_section.h"

#include <fmt/format.h>

#include <optional>

#include "exporters/json_util.h"
#include "exporters/report/text_table.h"

namespace rdmatop {
namespace {

using ojson = nlohmann::ordered_json;

/// The rate of the device's IRQ series for `irq`; nullopt unless it is known (ok or wrap).
std::optional<double> irq_rate(const Report& report, const std::string& device, std::uint32_t irq) {
  for (const auto& s : report.host_series) {
    if (s.series.name != "rdma_irq_interrupts_total" ||
        label_value(s.series.labels, "device") != device ||
        label_value(s.series.labels, "irq") != std::to_string(irq)) {
      continue;
    }
    if (s.rate.state == RateState::ok || s.rate.state == RateState::wrap) {
      return s.rate.per_second;
    }
  }
  return std::nullopt;
}

}  // namespace

std::string render_readiness_text(const Report& report) {
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
  return out.empty() ? "  no PCI RDMA devices\n" : out;
}

ojson render_readiness_json(const Report& report) {
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
  return {{"devices", std::move(devices)}};
}

}  // namespace rdmatop
