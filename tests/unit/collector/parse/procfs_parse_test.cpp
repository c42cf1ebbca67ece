// /proc/interrupts and sysfs numa_node parsers, and collect_readiness on a fake sysfs/procfs.
#include <catch2/catch.hpp>

#include <cerrno>
#include <string>

#include "collector/collect.h"
#include "collector/parse/procfs_parse.h"
#include "tests/support/fake_file_source.h"
#include "tests/support/unsupported_ethtool_source.h"

namespace rdmatop {
namespace {

// kernel/irq/proc.c show_interrupts: "%*d:", "%10u " per CPU, chip, hwirq-type, actions.
constexpr const char* kInterrupts =
    "           CPU0       CPU1       CPU2       CPU3       \n"
    "  0:         41          0          0          0   IO-APIC   2-edge      timer\n"
    " 143:     100000     200000          3          4  IR-PCI-MSIX-0000:3b:00.0    1-edge      "
    "mlx5_comp0@pci:0000:3b:00.0\n"
    " 144:          1          0          0          0  IR-PCI-MSIX-0000:3b:00.0    2-edge      "
    "mlx5_async0@pci:0000:3b:00.0, other action\n"
    "NMI:          0          0          0          0   Non-maskable interrupts\n"
    "ERR:          0\n";

TEST_CASE("parse_proc_interrupts sums CPUs and keeps the action name", "[procfs]") {
  auto r = parse_proc_interrupts(kInterrupts);
  REQUIRE(r.ok());
  REQUIRE(r->size() == 3);
  CHECK(r->at(143).count == 300007);
  CHECK(r->at(143).name == "mlx5_comp0@pci:0000:3b:00.0");
  CHECK(r->at(144).name == "mlx5_async0@pci:0000:3b:00.0, other action");
  CHECK(r->at(0).count == 41);
  CHECK(r->at(0).name == "timer");
}

TEST_CASE("parse_proc_interrupts rejects malformed text", "[procfs]") {
  for (const std::string bad : {"", "garbage\n", "   CPU0\n 5: x y z\n", "   CPU0 CPU1\n 5: 1\n",
                                "   CPU0\n 5: 1 chip 1-edge a\n 5: 2 chip 1-edge b\n",
                                "   CPU0 CPU1\n 5: 18446744073709551615 1 chip 1-edge a\n"}) {
    INFO(bad);
    auto r = parse_proc_interrupts(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == EPROTO);
  }
}

TEST_CASE("parse_numa_node: -1 is none, garbage is EINVAL", "[procfs]") {
  CHECK(parse_numa_node("1\n").value() == 1);
  CHECK_FALSE(parse_numa_node("-1\n").value().has_value());
  for (const std::string bad : {"", "x\n", "-2\n", "1.5\n", "99999999999\n"}) {
    INFO(bad);
    CHECK(parse_numa_node(bad).error().code == EINVAL);
  }
}

TEST_CASE("collect_readiness: NUMA node and the NIC's MSI vectors", "[procfs][collector]") {
  testing::FakeFileSource sysfs;
  sysfs.file("class/infiniband/mlx5_0/device/numa_node", "1\n")
      .file("class/infiniband/mlx5_0/device/msi_irqs/143", "msix\n")
      .file("class/infiniband/mlx5_0/device/msi_irqs/144", "msix\n")
      .file("class/infiniband/mlx5_0/device/msi_irqs/999", "msix\n");
  testing::FakeFileSource procfs;
  procfs.file("interrupts", kInterrupts);
  testing::UnsupportedEthtoolSource ethtool;
  CollectContext ctx{sysfs, ethtool, {}};
  ctx.procfs = &procfs;
  Snapshot snap;
  DeviceSample mlx;
  mlx.name = "mlx5_0";
  mlx.pci_address = "0000:3b:00.0";
  DeviceSample rxe;
  rxe.name = "rxe0";
  snap.devices = {mlx, rxe};
  collect_readiness(ctx, snap);
  CHECK(snap.devices[0].numa_node == 1);
  REQUIRE(snap.devices[0].irqs.size() == 2);
  CHECK(snap.devices[0].irqs[0].irq == 143);
  CHECK(snap.devices[0].irqs[0].count == 300007);
  CHECK(snap.devices[1].irqs.empty());
  REQUIRE(snap.sources.size() == 1);  // rxe (no PCI function) is skipped
  CHECK(snap.sources[0].state == SourceState::ok);

  ctx.procfs = nullptr;
  Snapshot no_proc;
  no_proc.devices = {mlx};
  collect_readiness(ctx, no_proc);
  CHECK(no_proc.devices[0].numa_node == 1);
  CHECK(no_proc.devices[0].irqs.empty());
  CHECK(no_proc.sources[0].state == SourceState::no_data);
  CHECK(no_proc.sources[0].message.find("no procfs root") != std::string::npos);
}

}  // namespace
}  // namespace rdmatop
