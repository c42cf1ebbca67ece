#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "simulator/builtin_scenarios.h"
#include "simulator/simulator.h"
#include "tests/unit/simulator/play.h"

using namespace rdmatop;

namespace {

sim::Scenario parsed(const char* text) {
  auto s = sim::parse_scenario(text, "test.yaml");
  REQUIRE(s.ok());
  return *s;
}

const SeriesWithRate* find_series(const PublishedTick& r, const std::string& device,
                                  const std::string& name, const std::string& label = "",
                                  const std::string& value = "") {
  for (const auto& port : r.ports) {
    if (r.snapshot.devices.at(port.device_index).name != device) continue;
    for (const auto& s : port.series) {
      if (s.series.name != name) continue;
      if (!label.empty() && label_value(s.series.labels, label) != value) continue;
      return &s;
    }
  }
  return nullptr;
}

}  // namespace

TEST_CASE("The simulator writes a realistic offline tree and removes it", "[simulator]") {
  std::string root;
  {
    auto sim = sim::Simulator::create(*sim::find_builtin_scenario("healthy"));
    REQUIRE(sim.ok());
    root = (*sim)->root();
    namespace fs = std::filesystem;
    CHECK(fs::is_symlink(root + "/sys/class/infiniband/mlx5_0"));
    CHECK(fs::read_symlink(root + "/sys/class/infiniband/mlx5_0").string() ==
          "../../devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/infiniband/mlx5_0");
    CHECK(fs::read_symlink(root + "/sys/class/infiniband/mlx5_0/device").string() ==
          "../../../0000:3b:00.0");
    CHECK(fs::exists(root + "/sys/class/infiniband/mlx5_0/device/net/ens1f0np0"));
    CHECK(fs::exists(root + "/sys/class/infiniband/bnxt_re0/ports/1/hw_counters/tx_cnp_pkts"));
    CHECK(fs::exists(root + "/ethtool/ens1f0np0.txt"));
    CHECK(fs::exists(root + "/ethtool/ens2f0np0.pause"));
  }
  CHECK_FALSE(std::filesystem::exists(root));
}

TEST_CASE("The provider runs the real collectors and stamps simulated time", "[simulator]") {
  sim::SimulatorOptions options;
  options.interval_s = 10;
  auto sim = sim::Simulator::create(*sim::find_builtin_scenario("healthy"), options);
  REQUIRE(sim.ok());
  auto provider = sim::simulator_provider(**sim);
  const auto a = provider(1);
  const auto b = provider(2);
  REQUIRE(a.has_value());
  REQUIRE(b.has_value());
  CHECK(b->taken - a->taken == std::chrono::seconds(10));
  CHECK(b->wall - a->wall == std::chrono::seconds(10));
  CHECK(b->hostname == sim::kSimulatedHostname);
  REQUIRE(b->devices.size() == 3);
  CHECK(b->devices[0].name == "bnxt_re0");
  CHECK(b->devices[0].driver == "bnxt_re");
  CHECK(b->devices[1].driver == "mlx5");
  CHECK(b->devices[1].pci_address == "0000:3b:00.0");
  REQUIRE(b->netdevs.size() == 3);
  for (const auto& status : b->sources) {
    INFO(status.source << " " << status.target << " " << status.message);
    // The simulated PCI functions have a numa_node but no msi_irqs: readiness is honestly
    // "no data" there; every other source reads completely.
    CHECK(status.state == (status.source == "readiness" ? SourceState::no_data : SourceState::ok));
  }
  CHECK(b->devices[0].numa_node == 1);
  CHECK(b->devices[1].numa_node == 0);
  // Without `processes:` the host has no RDMA netlink: the process collector does not run.
  CHECK(b->rdma_processes.empty());
  // The real sysfs collector found the routable RoCE v2 GID at the usual index.
  const auto& gids = b->devices[1].ports.at(0).gids;
  REQUIRE(gids.size() == 4);
  CHECK(gids[3].type == "RoCE v2");
  CHECK(gids[3].gid == "0000:0000:0000:0000:0000:ffff:c0a8:6401");
  CHECK(gids[3].netdev == "ens1f0np0");
}

TEST_CASE("A timeline ends after its duration unless it loops", "[simulator]") {
  const auto s = parsed("name: t\ndescription: d\ninterval: 5s\nphases:\n  - duration: 12s\n");
  auto sim = sim::Simulator::create(s);
  REQUIRE(sim.ok());
  auto provider = sim::simulator_provider(**sim);
  int n = 0;
  while (provider(static_cast<std::uint64_t>(n + 1))) ++n;
  CHECK(n == 3);  // 5 + 5 + 5 >= 12
  sim::SimulatorOptions loop;
  loop.loop = true;
  auto looping = sim::Simulator::create(s, loop);
  REQUIRE(looping.ok());
  auto forever = sim::simulator_provider(**looping);
  for (std::uint64_t i = 1; i <= 10; ++i) CHECK(forever(i).has_value());
}

TEST_CASE("Scenarios naming ports the host lacks are refused", "[simulator]") {
  const auto s = parsed(
      "name: t\ndescription: d\nphases:\n  - duration: 5s\n    ports:\n      mlx5_9: {load: 1}\n");
  const auto sim = sim::Simulator::create(s);
  REQUIRE_FALSE(sim.ok());
  CHECK_THAT(sim.error().message, Catch::Contains("mlx5_9"));
}

TEST_CASE("A 32-bit counter wraps: the rate says wrap, not reset", "[simulator]") {
  // local_ack_timeout_err (32-bit Q-counter) starts 150 below 2^32 and grows 100/s.
  const auto s = parsed(R"(name: wrap
description: d
interval: 1s
start:
  mlx5_1/1: {ack_timeouts: 4294967146}
phases:
  - duration: 5s
    ports:
      mlx5_1/1: {ack_timeouts_per_s: 100}
)");
  const auto played = test::play(s);
  REQUIRE(played.errors.empty());
  REQUIRE(played.reports.size() == 5);
  const auto* first = find_series(*played.reports[0], "mlx5_1", "rdma_ack_timeouts_total");
  const auto* second = find_series(*played.reports[1], "mlx5_1", "rdma_ack_timeouts_total");
  REQUIRE(first != nullptr);
  REQUIRE(second != nullptr);
  CHECK(first->series.value >= 4294967246.0);
  CHECK(second->series.value < first->series.value);  // wrapped past 2^32
  CHECK(second->rate.state == RateState::wrap);
  CHECK(second->rate.per_second == Approx(100).margin(1));
}

TEST_CASE("A driver reload resets the counters: the rate says reset", "[simulator]") {
  const auto s = parsed(R"(name: reload
description: d
interval: 5s
phases:
  - {name: before, duration: 10s}
  - {name: after, duration: 10s, reload: [mlx5_1]}
)");
  const auto played = test::play(s);
  REQUIRE(played.reports.size() == 4);
  const auto* before =
      find_series(*played.reports[1], "mlx5_1", "rdma_bytes_total", "direction", "tx");
  const auto* after =
      find_series(*played.reports[2], "mlx5_1", "rdma_bytes_total", "direction", "tx");
  const auto* other =
      find_series(*played.reports[2], "mlx5_0", "rdma_bytes_total", "direction", "tx");
  REQUIRE(before != nullptr);
  REQUIRE(after != nullptr);
  REQUIRE(other != nullptr);
  CHECK(after->series.value < before->series.value);
  CHECK(after->rate.state == RateState::reset);
  CHECK(other->rate.state == RateState::ok);
  const auto* later =
      find_series(*played.reports[3], "mlx5_1", "rdma_bytes_total", "direction", "tx");
  REQUIRE(later != nullptr);
  CHECK(later->rate.state == RateState::ok);
}

TEST_CASE("PFC state and pause occupancy reach the canonical series", "[simulator]") {
  const auto s = parsed(R"(name: pfc
description: d
interval: 5s
phases:
  - duration: 10s
    ports:
      mlx5_0/1: {tx_pause: 0.5}
      mlx5_1/1: {pfc: false}
)");
  const auto played = test::play(s);
  REQUIRE(played.reports.size() == 2);
  const PublishedTick& r = *played.reports[1];
  const auto* on = find_series(r, "mlx5_0", "rdma_pfc_enabled", "priority", "3");
  const auto* off = find_series(r, "mlx5_1", "rdma_pfc_enabled", "priority", "3");
  REQUIRE(on != nullptr);
  REQUIRE(off != nullptr);
  CHECK(on->series.value == 1);
  CHECK(off->series.value == 0);
  const SeriesWithRate* tx = nullptr;
  for (const auto& port : r.ports) {
    if (r.snapshot.devices.at(port.device_index).name != "mlx5_0") continue;
    for (const auto& x : port.series) {
      if (x.series.name == "rdma_pfc_pause_seconds_total" &&
          label_value(x.series.labels, "direction") == "tx") {
        tx = &x;
      }
    }
  }
  REQUIRE(tx != nullptr);
  CHECK(tx->rate.per_second == Approx(0.5).margin(0.001));  // µs counter -> seconds per second
}

TEST_CASE("rdmatop demo runs without a terminal for a bounded number of ticks", "[simulator]") {
  const std::string cmd = std::string(RDMATOP_BINARY) + " demo healthy --ticks 3 > /dev/null";
  CHECK(std::system(cmd.c_str()) == 0);
  const std::string bad = std::string(RDMATOP_BINARY) + " demo no-such-scenario 2> /dev/null";
  CHECK(std::system(bad.c_str()) != 0);
}

TEST_CASE("Scenario processes reach the Snapshot by RDMA netlink and procfs", "[simulator]") {
  auto sim = sim::Simulator::create(*sim::find_builtin_scenario("host-readiness"));
  REQUIRE(sim.ok());
  auto provider = sim::simulator_provider(**sim);
  const auto snap = provider(1);
  REQUIRE(snap.has_value());
  for (const auto& status : snap->sources) {
    INFO(status.source << " " << status.target << " " << status.message);
    if (status.source == "rdma-processes") CHECK(status.state == SourceState::ok);
    if (status.source == "rdma-processes") CHECK(status.message.empty());
  }
  const auto find = [&](std::uint32_t pid) -> const RdmaProcess* {
    for (const auto& p : snap->rdma_processes) {
      if (p.pid == pid) return &p;
    }
    return nullptr;
  };
  // One line per scenario process plus ib_core, whose objects every device has.
  CHECK(snap->rdma_processes.size() == (*sim)->scenario().processes.size() + 1);
  const RdmaProcess* kernel = find(0);
  REQUIRE(kernel != nullptr);
  CHECK(kernel->comm == "[ib_core]");
  CHECK(kernel->qps.size() == 3);
  for (const sim::SimProcess& expected : (*sim)->scenario().processes) {
    INFO("pid " << expected.pid);
    const RdmaProcess* p = find(expected.pid);
    REQUIRE(p != nullptr);
    CHECK(p->comm == expected.comm);
    CHECK(p->memlock_soft_bytes == expected.memlock_bytes);
    CHECK(p->memlock_unlimited == !expected.memlock_bytes.has_value());
    CHECK(p->pinned_bytes == std::optional<std::uint64_t>(expected.pinned_bytes));
    CHECK(p->cap_ipc_lock == std::optional<bool>(expected.cap_ipc_lock));
    for (const std::string& device : expected.devices) {
      CHECK(p->qps.at(device) == expected.qps);
      CHECK(p->mrs.at(device) == expected.mrs);
    }
    CHECK(p->qps.size() == expected.devices.size());
  }
  // kv-server runs on CPUs 0-7 (node 0); mpi-rank0 on 16-31 (node 1).
  REQUIRE(find(3377) != nullptr);
  CHECK(find(3377)->cpu_numa_nodes == std::vector<std::int32_t>{0});
  REQUIRE(find(4402) != nullptr);
  CHECK(find(4402)->cpu_numa_nodes == std::vector<std::int32_t>{1});
}

TEST_CASE("Bound QP counters attribute a port's retransmits to one process", "[simulator]") {
  auto sim = sim::Simulator::create(*sim::find_builtin_scenario("qp-counter-attribution"));
  REQUIRE(sim.ok());
  auto provider = sim::simulator_provider(**sim);
  std::optional<Snapshot> snap;
  // Into the loss phase: 1 min healthy at 5 s per tick, then loss.
  for (std::uint64_t seq = 1; seq <= 30; ++seq) snap = provider(seq);
  REQUIRE(snap.has_value());
  const auto port = [&](const std::string& device) -> const PortSample& {
    for (const DeviceSample& d : snap->devices) {
      if (d.name == device) return d.ports.at(0);
    }
    FAIL("no device " << device);
    return snap->devices.at(0).ports.at(0);
  };
  for (const auto& status : snap->sources) {
    INFO(status.source << " " << status.target << " " << status.message);
    if (status.source == "netlink-qp-counters") CHECK(status.state == SourceState::ok);
  }
  const PortSample& lossy = port("mlx5_1");
  REQUIRE(lossy.qp_counter_mode.has_value());
  CHECK(*lossy.qp_counter_mode == QpCounterMode{1, 2});  // auto, by PID
  REQUIRE(lossy.bound_counters.size() == 2);
  const BoundCounter& trainer = lossy.bound_counters[0];
  const BoundCounter& kv = lossy.bound_counters[1];
  CHECK(trainer.pid == 5101u);
  CHECK(trainer.comm == "trainer");  // named from the process collector's read of /proc
  CHECK(trainer.qpns.size() == 4);
  CHECK(kv.pid == 5202u);
  CHECK(kv.comm == "kv-cache");
  CHECK(kv.qpns.size() == 2);
  // The bound counters split the port's own count (which already includes them), 95:5.
  const std::uint64_t port_timeouts = lossy.hw_counters.at("local_ack_timeout_err");
  const std::uint64_t trainer_timeouts = trainer.hw_counters.at("local_ack_timeout_err");
  const std::uint64_t kv_timeouts = kv.hw_counters.at("local_ack_timeout_err");
  CHECK(port_timeouts > 1000);
  CHECK(trainer_timeouts + kv_timeouts <= port_timeouts);
  CHECK(trainer_timeouts > 15 * kv_timeouts);
  CHECK(static_cast<double>(trainer_timeouts) ==
        Approx(0.95 * static_cast<double>(port_timeouts)).epsilon(0.01));
  // The QP numbers are the ones the QP dump gives the same processes.
  CHECK(trainer.qpns.front() < kv.qpns.front());
  // Ports whose processes have no share, and bnxt_re (which cannot bind), run no QP counters.
  for (const std::string device : {"mlx5_0", "bnxt_re0"}) {
    INFO(device);
    REQUIRE(port(device).qp_counter_mode.has_value());
    CHECK(port(device).qp_counter_mode->mode == 0u);
    CHECK(port(device).bound_counters.empty());
  }
}
