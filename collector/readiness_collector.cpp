// collect_readiness: host facts an RDMA NIC needs right, per PCI device: its NUMA node (sysfs
// `numa_node`, -1 = none) and the interrupt counts of its MSI/MSI-X vectors (the IRQ numbers
// listed in the PCI function's `msi_irqs/`, counted in /proc/interrupts summed over CPUs). Virtual
// devices (rxe) have neither and are skipped. One status "readiness"/<device>: ok when both were
// read (IRQs only when a procfs root is available); no_data with the reason otherwise.
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <string>

#include "collector/collect.h"
#include "collector/parse/procfs_parse.h"

namespace rdmatop {

void collect_readiness(const CollectContext& ctx, Snapshot& out) {
  std::optional<Result<std::map<std::uint32_t, IrqSample>>> interrupts;  // read once, on demand
  for (auto& device : out.devices) {
    if (device.pci_address.empty()) continue;
    StatusTimer timer("readiness", device.name);
    // The device link leads to the PCI function on the live host and in fixture trees alike.
    const std::string pci = "class/infiniband/" + device.name + "/device/";
    std::string note;
    std::chrono::nanoseconds age{0};
    if (auto text = ctx.sysfs.read_static(pci + "numa_node", &age); text.ok()) {
      if (auto node = parse_numa_node(*text); node.ok()) {
        device.numa_node = *node;
      } else {
        note = node.error().message;
      }
    } else {
      note = "numa_node: " + text.error().message;
    }
    device.static_age = std::max(device.static_age, age);
    auto irqs = ctx.sysfs.list_static(pci + "msi_irqs");
    if (!irqs) {
      append_note(note, "msi_irqs: " + irqs.error().message);
    } else if (ctx.procfs == nullptr) {
      append_note(note, "interrupt counts: no procfs root");
    } else {
      if (!interrupts) {
        auto text = ctx.procfs->read("interrupts");
        interrupts = text ? parse_proc_interrupts(*text)
                          : Result<std::map<std::uint32_t, IrqSample>>(text.error());
      }
      if (!*interrupts) {
        append_note(note, "interrupts: " + (*interrupts).error().message);
      } else {
        for (const std::string& name : **irqs) {
          std::uint32_t irq = 0;
          const auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), irq);
          if (ec != std::errc() || end != name.data() + name.size()) continue;
          const auto it = (**interrupts).find(irq);
          if (it != (**interrupts).end()) device.irqs.push_back(it->second);
        }
      }
    }
    const SourceState state = note.empty() ? SourceState::ok : SourceState::no_data;
    out.sources.push_back(timer.finish(state, std::move(note)));
  }
}

}  // namespace rdmatop
