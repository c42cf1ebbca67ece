// The HOST READINESS section's processes (text and JSON) and their series in the exporter.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>

#include "exporters/report/readiness_section.h"
#include "exporters/report/report_render.h"
#include "tests/support/report_of.h"

using namespace rdmatop;
using test::exposition_of;
using test::report_of;

namespace {

Snapshot snapshot_with_processes() {
  Snapshot s;
  DeviceSample mlx5;
  mlx5.name = "mlx5_0";
  mlx5.pci_address = "0000:3b:00.0";
  mlx5.numa_node = 1;
  DeviceSample rxe;
  rxe.name = "rxe0";
  s.devices = {mlx5, rxe};
  RdmaProcess kern;
  kern.comm = "[ib_core]";
  kern.qps = {{"rxe0", 1}};
  RdmaProcess app;
  app.pid = 4321;
  app.comm = "ib_write_bw";
  app.qps = {{"mlx5_0", 4}, {"rxe0", 2}};
  app.cqs = {{"mlx5_0", 2}};
  app.mrs = {{"mlx5_0", 1}};
  app.pinned_bytes = 1048576;
  app.cap_ipc_lock = false;
  app.memlock_soft_bytes = 8388608;
  app.cpu_numa_nodes = {0};
  s.rdma_processes = {kern, app};
  s.sources.push_back(SourceStatus{"rdma-processes", "", SourceState::ok, "", {}});
  return s;
}

}  // namespace

TEST_CASE("readiness text: one row per process and device", "[report][processes]") {
  const std::string text = render_readiness_text(report_of(snapshot_with_processes()));
  INFO(text);
  REQUIRE(text.find("  RDMA processes:\n") != std::string::npos);
  const auto line_of = [&](const std::string& needle) {
    const auto at = text.find(needle);
    REQUIRE(at != std::string::npos);
    const auto begin = text.rfind('\n', at) + 1;
    return text.substr(begin, text.find('\n', at) - begin);
  };
  const std::string mlx5 = line_of("ib_write_bw  mlx5_0");
  CHECK(mlx5.find("4321") != std::string::npos);
  CHECK(mlx5.find("8 MiB") != std::string::npos);  // memlock
  CHECK(mlx5.find("1 MiB") != std::string::npos);  // pinned
  CHECK(mlx5.find("1 (remote)") != std::string::npos);
  const std::string rxe = line_of("ib_write_bw  rxe0");
  CHECK(rxe.find("  -  ") != std::string::npos);  // no CQ on rxe0
  CHECK(rxe.substr(rxe.size() - 1) == "-");       // rxe0 has no NUMA node
  const std::string kern = line_of("[ib_core]");
  CHECK(kern.find("8 MiB") == std::string::npos);
}

TEST_CASE("readiness text: none read, none found", "[report][processes]") {
  Snapshot s = snapshot_with_processes();
  s.rdma_processes.clear();
  CHECK(render_readiness_text(report_of(s)).find("RDMA processes: none holds RDMA objects") !=
        std::string::npos);
  s.sources[0].state = SourceState::no_data;
  s.sources[0].message = "RDMA_NLDEV_CMD_GET: netlink socket: Protocol not supported";
  CHECK(render_readiness_text(report_of(s))
            .find("RDMA processes: not read (RDMA_NLDEV_CMD_GET: netlink socket: Protocol not "
                  "supported)") != std::string::npos);
  s.sources.clear();  // not read at all (not the live host): nothing said
  CHECK(render_readiness_text(report_of(s)).find("RDMA processes") == std::string::npos);
}

TEST_CASE("readiness JSON: processes with their placement per device", "[report][processes]") {
  const auto doc = render_readiness_json(report_of(snapshot_with_processes()));
  REQUIRE(doc["processes"].size() == 2);
  const auto& app = doc["processes"][1];
  CHECK(app["pid"] == 4321);
  CHECK(app["comm"] == "ib_write_bw");
  CHECK(app["qps"]["mlx5_0"] == 4);
  CHECK(app["pds"].empty());
  CHECK(app["memlock_soft_bytes"] == 8388608);
  CHECK(app["memlock_unlimited"] == false);
  CHECK(app["pinned_bytes"] == 1048576);
  CHECK(app["cap_ipc_lock"] == false);
  CHECK(app["numa_placement"]["mlx5_0"] == "remote");
  CHECK(app["numa_placement"]["rxe0"].is_null());
  CHECK(doc["processes"][0]["pid"] == 0);
  CHECK(doc["processes"][0]["memlock_soft_bytes"].is_null());
  // The whole report document carries it too.
  const auto whole =
      nlohmann::json::parse(render_report_json(report_of(snapshot_with_processes())));
  CHECK(whole["host_readiness"]["processes"].size() == 2);
}

TEST_CASE("exporter: host series (processes) are served with their help", "[exporter]") {
  const std::string out = exposition_of(snapshot_with_processes());
  INFO(out);
  CHECK(out.find("# TYPE rdma_process_resources gauge\n") != std::string::npos);
  CHECK(out.find("rdma_process_resources{comm=\"ib_write_bw\",device=\"mlx5_0\",pid=\"4321\","
                 "resource=\"qp\"} 4\n") != std::string::npos);
  CHECK(out.find("rdma_process_memlock_limit_bytes{comm=\"ib_write_bw\",pid=\"4321\"} 8388608\n") !=
        std::string::npos);
  CHECK(out.find("rdma_process_numa_mismatch{comm=\"ib_write_bw\",device=\"mlx5_0\",pid=\"4321\"} "
                 "2\n") != std::string::npos);
  CHECK(out.find("rdma_device_numa_node{device=\"mlx5_0\"} 1\n") != std::string::npos);
  CHECK(out.find("# HELP rdma_process_pinned_bytes memory the process has pinned") !=
        std::string::npos);
}
