// Series of the processes holding RDMA objects: objects per device and kind, memlock (limited,
// unlimited, unread), pinned memory, CAP_IPC_LOCK and the NUMA placement against each device.
#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <vector>

#include "collector/normalize/host_config_series.h"
#include "collector/normalize/metric_catalogue.h"
#include "collector/normalize/normalizer.h"
#include "collector/normalize/process_series.h"

namespace rdmatop {
namespace {

Snapshot snapshot() {
  Snapshot s;
  DeviceSample mlx5;
  mlx5.name = "mlx5_0";
  mlx5.numa_node = 1;
  DeviceSample rxe;
  rxe.name = "rxe0";  // virtual: no NUMA node
  s.devices = {mlx5, rxe};
  RdmaProcess kern;
  kern.pid = 0;
  kern.comm = "[ib_core]";
  kern.qps = {{"mlx5_0", 1}};
  RdmaProcess app;
  app.pid = 4321;
  app.comm = "ib_write_bw";
  app.qps = {{"mlx5_0", 4}, {"rxe0", 2}};
  app.cqs = {{"mlx5_0", 2}};
  app.mrs = {{"mlx5_0", 1}};
  app.pds = {{"mlx5_0", 1}};
  app.memlock_soft_bytes = 65536;
  app.pinned_bytes = 61440;
  app.cap_ipc_lock = false;
  app.cpu_numa_nodes = {0};
  s.rdma_processes = {kern, app};
  return s;
}

std::vector<const Series*> find(const std::vector<Series>& series, const std::string& name,
                                const Labels& match = {}) {
  std::vector<const Series*> out;
  for (const auto& s : series) {
    if (s.name != name) continue;
    bool ok = true;
    for (const auto& [k, v] : match) ok = ok && label_value(s.labels, k) == v;
    if (ok) out.push_back(&s);
  }
  return out;
}

}  // namespace

TEST_CASE("process series: objects per device and kind, limits, pinned memory",
          "[normalize][processes]") {
  std::vector<Series> series;
  add_process_series(snapshot(), series);
  const auto qps = find(series, "rdma_process_resources", {{"pid", "4321"}, {"resource", "qp"}});
  REQUIRE(qps.size() == 2);
  CHECK(qps[0]->labels ==
        Labels{{"comm", "ib_write_bw"}, {"device", "mlx5_0"}, {"pid", "4321"}, {"resource", "qp"}});
  CHECK(qps[0]->value == 4);
  CHECK(qps[0]->kind == SeriesKind::gauge);
  CHECK(qps[1]->value == 2);
  CHECK(find(series, "rdma_process_resources", {{"pid", "4321"}}).size() == 5);
  // The kernel user: its objects, nothing else.
  const auto kern = find(series, "rdma_process_resources", {{"pid", "0"}});
  REQUIRE(kern.size() == 1);
  CHECK(label_value(kern[0]->labels, "comm") == "[ib_core]");
  CHECK(find(series, "rdma_process_memlock_unlimited", {{"pid", "0"}}).empty());

  const auto limit = find(series, "rdma_process_memlock_limit_bytes");
  REQUIRE(limit.size() == 1);
  CHECK(limit[0]->value == 65536);
  CHECK(limit[0]->labels == Labels{{"comm", "ib_write_bw"}, {"pid", "4321"}});
  REQUIRE(find(series, "rdma_process_memlock_unlimited").size() == 1);
  CHECK(find(series, "rdma_process_memlock_unlimited")[0]->value == 0);
  REQUIRE(find(series, "rdma_process_pinned_bytes").size() == 1);
  CHECK(find(series, "rdma_process_pinned_bytes")[0]->value == 61440);
  REQUIRE(find(series, "rdma_process_cap_ipc_lock").size() == 1);
  CHECK(find(series, "rdma_process_cap_ipc_lock")[0]->value == 0);
  // Every family emitted is a documented host-configuration family (docs test below it).
  for (const auto& s : series) CHECK(find_metric(s.name) != nullptr);
}

TEST_CASE("process series: unlimited and unread memlock", "[normalize][processes]") {
  Snapshot s = snapshot();
  s.rdma_processes[1].memlock_soft_bytes.reset();
  s.rdma_processes[1].memlock_unlimited = true;
  std::vector<Series> series;
  add_process_series(s, series);
  CHECK(find(series, "rdma_process_memlock_limit_bytes").empty());
  REQUIRE(find(series, "rdma_process_memlock_unlimited").size() == 1);
  CHECK(find(series, "rdma_process_memlock_unlimited")[0]->value == 1);

  s.rdma_processes[1].memlock_unlimited = false;  // unreadable: absent, not 0 or unlimited
  s.rdma_processes[1].pinned_bytes.reset();
  s.rdma_processes[1].cap_ipc_lock.reset();
  series.clear();
  add_process_series(s, series);
  CHECK(find(series, "rdma_process_memlock_limit_bytes").empty());
  CHECK(find(series, "rdma_process_memlock_unlimited").empty());
  CHECK(find(series, "rdma_process_pinned_bytes").empty());
  CHECK(find(series, "rdma_process_cap_ipc_lock").empty());
}

TEST_CASE("numa_placement: local, partial, remote, unknown", "[normalize][processes]") {
  RdmaProcess p;
  CHECK_FALSE(numa_placement(p, 0));  // CPUs not read
  p.cpu_numa_nodes = {0};
  CHECK_FALSE(numa_placement(p, std::nullopt));  // device without a node
  CHECK(numa_placement(p, 0) == NumaPlacement::local);
  CHECK(numa_placement(p, 1) == NumaPlacement::remote);
  p.cpu_numa_nodes = {0, 1};
  CHECK(numa_placement(p, 1) == NumaPlacement::partial);
  CHECK(numa_placement(p, 3) == NumaPlacement::remote);
  CHECK(std::string(to_string(NumaPlacement::local)) == "local");
  CHECK(std::string(to_string(NumaPlacement::partial)) == "partial");
  CHECK(std::string(to_string(NumaPlacement::remote)) == "remote");
}

TEST_CASE("process series: NUMA mismatch per device with a known node", "[normalize][processes]") {
  Snapshot s = snapshot();
  std::vector<Series> series;
  add_process_series(s, series);
  auto mismatch = find(series, "rdma_process_numa_mismatch");
  REQUIRE(mismatch.size() == 1);  // rxe0 has no node; the kernel user has no CPUs
  CHECK(label_value(mismatch[0]->labels, "device") == "mlx5_0");
  CHECK(mismatch[0]->value == 2);  // CPUs on node 0 only, the NIC on node 1

  s.rdma_processes[1].cpu_numa_nodes = {0, 1};
  series.clear();
  add_process_series(s, series);
  CHECK(find(series, "rdma_process_numa_mismatch")[0]->value == 1);
  s.rdma_processes[1].cpu_numa_nodes = {1};
  series.clear();
  add_process_series(s, series);
  CHECK(find(series, "rdma_process_numa_mismatch")[0]->value == 0);
}

TEST_CASE("process series reach the normalizer's output", "[normalize][processes]") {
  const auto series = normalize(snapshot());
  CHECK_FALSE(find(series, "rdma_process_resources").empty());
  CHECK(find(series, "rdma_process_numa_mismatch").size() == 1);
}

}  // namespace rdmatop
