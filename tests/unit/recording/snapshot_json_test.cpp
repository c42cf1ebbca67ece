#include <catch2/catch.hpp>
#include <limits>
#include <nlohmann/json.hpp>

#include "recording/snapshot_json.h"

using namespace rdmatop;
using nlohmann::json;

namespace {

constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
const std::chrono::steady_clock::time_point kStart{std::chrono::seconds(1000)};

/// A snapshot with every field of every struct set to a non-default value, so a field the codec
/// forgets decodes to its default and breaks equality.
Snapshot full_snapshot() {
  Snapshot s;
  s.seq = kMax - 1;
  s.taken = kStart + std::chrono::nanoseconds(123'456'789'012);
  s.wall =
      std::chrono::system_clock::time_point(std::chrono::nanoseconds(1'796'039'952'893'707'641));
  s.hostname = "h\xC3\xB6st-\xE6\x97\xA5\xE6\x9C\xAC \"quoted\" \\ \t\n\x01";
  DeviceSample d;
  d.name = "mlx5_0";
  d.driver = "mlx5";
  d.node_type = "1: CA";
  d.fw_ver = "22.39.1002";
  d.node_guid = "b859:9f03:00a1:b2c4";
  d.sys_image_guid = "b859:9f03:00a1:b2c4";
  d.hca_type = "MT4125";
  d.board_id = "MT_0000000012";
  d.hw_rev = "0";
  d.pci_address = "0000:3b:00.0";
  d.hw_counters = {{"np_cnp_sent", kMax}, {"out_of_buffer", 0}, {"w\xC3\xA9ird name", 7}};
  d.resources = {{"qp", 12}, {"cq", kMax}};
  DevlinkInfo dl;
  dl.bus_name = "pci";
  dl.dev_name = "0000:3b:00.0";
  dl.driver = "mlx5_core";
  dl.serial_number = "MT2116X09299";
  dl.board_serial_number = "MT2116X09298";
  dl.fixed = {{"fw.psid", "MT_0000000012"}};
  dl.running = {{"fw.version", "16.35.2000"}};
  dl.stored = {{"fw.version", "16.35.3006"}};
  dl.reporters = {
      {"fw_fatal", "error", kMax, 1, 81234567, 1200000, true, false},
      {"tx", "healthy", 0, std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt}};
  d.devlink = dl;
  d.numa_node = 1;
  d.irqs = {{143, "mlx5_comp0@pci:0000:3b:00.0", kMax}, {144, "mlx5_async0", 0}};
  PortSample p;
  p.port = 1;
  p.state_id = 4;
  p.state = "ACTIVE";
  p.phys_state_id = 5;
  p.phys_state = "LinkUp";
  p.rate_text = "100 Gb/sec (4X EDR)";
  p.rate_gbps = 0.1 + 0.2;  // not exactly representable in decimal: must round-trip bit-exact
  p.link_layer = "Ethernet";
  p.netdev = "ens1f0np0";
  p.gid_table_read = true;
  p.gids = {{0, "fe80:0000:0000:0000:ba59:9fff:fea1:b2c4", "IB/RoCE v1", "ens1f0np0"},
            {3, "0000:0000:0000:0000:0000:ffff:c0a8:6401", "RoCE v2", "ens1f0np0"}};
  p.counters = {{"port_xmit_data", kMax - 3}, {"port_rcv_data", 1ULL << 63}};
  p.hw_counters = {{"rx_write_requests", 18'446'744'073'709'551'000ULL}};
  p.hw_counters_lifespan_ms = 10;
  p.counter_source = "netlink";
  p.optional_counters = {{"lifespan_probe", true}, {"rx_icrc_encapsulated", false}};
  p.qp_counter_mode = QpCounterMode{1, 3};
  p.bound_counters = {
      BoundCounter{4, 1, 2, 4242, "", "ib_write_bw", {0xffffff, 7}, {{"out_of_sequence", kMax}}},
      BoundCounter{9, 2, std::nullopt, std::nullopt, "rdma_cm", "", {}, {}}};
  d.ports.push_back(p);
  PortSample p2 = p;
  p2.port = 2;
  d.ports.push_back(p2);
  s.devices.push_back(d);
  NetdevSample n;
  n.name = "ens1f0np0";
  n.mtu = 4200;
  n.operstate = "up";
  n.carrier_changes = kMax;
  n.speed_mbps = -1;
  n.address = "b8:59:9f:a1:b2:c4";
  n.statistics = {{"rx_bytes", kMax}, {"tx_bytes", 1}};
  n.ethtool = {{"rx_prio3_pause", 5}, {"tx_prio3_pause_duration", kMax}};
  n.driver = DriverInfo{"mlx5_core", "6.1.0", "22.39.1002 (MT_0000000012)", "0000:3b:00.0"};
  n.pause = PauseInfo{false, true, true, kMax, 0};
  DcbInfo dcb;
  dcb.pfc_enabled = 0x08;
  dcb.pfc_cap = 8;
  dcb.pfc_delay = 65535;
  dcb.pfc_requests = {0, 0, 0, kMax, 0, 0, 0, 1};
  dcb.pfc_indications = {0, 0, 0, 7, 0, 0, 0, 0};
  dcb.ets_prio_tc = {0, 0, 0, 3, 0, 0, 0, 7};
  dcb.ets_tc_bw = {50, 0, 0, 50, 0, 0, 0, 0};
  dcb.ets_tc_tsa = {2, 0, 0, 2, 0, 0, 0, 255};
  dcb.app = {{5, 26, 3}, {255, 65535, 7}};
  dcb.trust = "dscp pcp";
  n.dcb = dcb;
  n.pfc_prevention_tout_ms = 65535;
  s.netdevs.push_back(n);
  s.sources = {{"sysfs", "mlx5_0/1", SourceState::ok, "", std::chrono::nanoseconds(400'123)},
               {"ethtool", "ens1f0np0", SourceState::error, "ioctl: Operation not supported",
                std::chrono::nanoseconds(9)},
               {"devlink", "", SourceState::no_data, "no devlink", std::chrono::nanoseconds(0)}};
  ProbeTargetSample probe;
  probe.target = "10.0.0.2:18515";
  probe.group = "tor-a";
  probe.transport = "rc_send";
  probe.traffic_class = 106;
  probe.local_device = "mlx5_0";
  probe.connected = true;
  probe.sent = kMax;
  probe.answered = 1000;
  probe.timed_out = 3;
  probe.connect_failures = 2;
  probe.qp_errors = 1;
  probe.wc_errors = {{"transport retry counter exceeded", 1}, {"RNR retry counter exceeded", 4}};
  probe.last_error = "rdma_resolve_route: No route to host";
  probe.bucket_upper_seconds = {1e-6, 0.1 + 0.2, 1e-3};
  probe.bucket_counts = {0, 990, 1000};
  probe.rtt_sum_seconds = 0.1 + 0.7;
  probe.window = RttSummary{10, 1.1e-6, 2.2e-6, 3.3e-6, 4.4e-6, 5.5e-6, 6.6e-6};
  probe.retransmits = 7;
  probe.retransmit_scope = "qp";
  s.probes.push_back(probe);
  ProbeTargetSample tcp = probe;
  tcp.transport = "tcp";
  tcp.traffic_class.reset();
  tcp.window.reset();
  tcp.retransmits.reset();
  tcp.retransmit_scope.clear();
  tcp.local_device.clear();
  s.probes.push_back(tcp);
  s.prober = ProberCost{0.1 + 0.2, 64, kMax, 32};
  RdmaProcess proc;
  proc.pid = 4194304;
  proc.comm = "ib_write_bw";
  proc.qps = {{"mlx5_0", 4}};
  proc.cqs = {{"mlx5_0", 2}, {"rxe0", 1}};
  proc.mrs = {{"mlx5_0", 4294967295U}};
  proc.pds = {{"mlx5_0", 1}};
  proc.pinned_bytes = kMax;
  proc.cap_ipc_lock = false;
  proc.memlock_soft_bytes = kMax;
  proc.memlock_unlimited = false;
  proc.cpu_numa_nodes = {0, 1};
  RdmaProcess kernel_user;
  kernel_user.pid = 0;
  kernel_user.comm = "[ib_core]";
  kernel_user.memlock_unlimited = true;
  s.rdma_processes = {kernel_user, proc};
  return s;
}

Snapshot round_trip(const Snapshot& s) {
  // Through text, as a recording stores it.
  const std::string text = snapshot_to_json(s, kStart).dump();
  auto back = snapshot_from_json(json::parse(text), kStart);
  REQUIRE(back.ok());
  return back.value();
}

}  // namespace

TEST_CASE("A fully populated snapshot survives JSON exactly", "[recording][snapshot_json]") {
  const Snapshot s = full_snapshot();
  CHECK(round_trip(s) == s);
}

TEST_CASE("Absent optionals stay absent through JSON", "[recording][snapshot_json]") {
  Snapshot s = full_snapshot();
  auto& p = s.devices[0].ports[0];
  p.state_id.reset();
  p.phys_state_id.reset();
  p.rate_gbps.reset();
  p.hw_counters_lifespan_ms.reset();
  p.counters.clear();
  auto& n = s.netdevs[0];
  n.mtu.reset();
  n.carrier_changes.reset();
  n.speed_mbps.reset();
  n.driver.reset();
  n.pause = PauseInfo{};
  const Snapshot back = round_trip(s);
  CHECK(back == s);
  CHECK_FALSE(back.devices[0].ports[0].state_id.has_value());
  REQUIRE(back.netdevs[0].pause.has_value());
  CHECK_FALSE(back.netdevs[0].pause->rx.has_value());
  CHECK_FALSE(back.netdevs[0].driver.has_value());
}

TEST_CASE("The recorded offset rebuilds `taken` on the replay epoch",
          "[recording][snapshot_json]") {
  const Snapshot s = full_snapshot();
  const json doc = json::parse(snapshot_to_json(s, kStart).dump());
  CHECK(doc.at("offset_ns").get<std::int64_t>() == 123'456'789'012);
  const auto back = snapshot_from_json(doc);  // default epoch: taken == offset
  REQUIRE(back.ok());
  CHECK(back->taken.time_since_epoch() == std::chrono::nanoseconds(123'456'789'012));
  CHECK(back->wall == s.wall);
}

TEST_CASE("Probe results and the prober's cost survive JSON", "[recording][snapshot_json]") {
  const Snapshot s = full_snapshot();
  REQUIRE(s.probes.size() == 2);
  const Snapshot back = round_trip(s);
  CHECK(back.probes == s.probes);
  CHECK(back.prober == s.prober);
  CHECK_FALSE(back.probes[1].window.has_value());
  CHECK_FALSE(back.probes[1].traffic_class.has_value());
  CHECK_FALSE(back.probes[1].retransmits.has_value());
  // Why a stream is port-level: written only when there is a reason, read back as written.
  CHECK_FALSE(snapshot_to_json(s, kStart)["probes"][0].contains("retransmit_note"));
  Snapshot noted = s;
  noted.probes[0].retransmit_scope = "port";
  noted.probes[0].retransmit_note = "rxe0/1: driver cannot bind QP counters (ENOMEM)";
  CHECK(snapshot_to_json(noted, kStart)["probes"][0]["retransmit_note"] ==
        noted.probes[0].retransmit_note);
  CHECK(round_trip(noted).probes == noted.probes);
  Snapshot no_prober = s;
  no_prober.probes.clear();
  no_prober.prober.reset();
  const Snapshot back_empty = round_trip(no_prober);
  CHECK(back_empty.probes.empty());
  CHECK_FALSE(back_empty.prober.has_value());
}

TEST_CASE("A recording from before probes existed opens without them",
          "[recording][snapshot_json]") {
  json doc = json::parse(snapshot_to_json(full_snapshot(), kStart).dump());
  doc.erase("probes");
  doc.erase("prober");
  const auto r = snapshot_from_json(doc, kStart);
  REQUIRE(r.ok());
  CHECK(r->probes.empty());
  CHECK_FALSE(r->prober.has_value());
}

TEST_CASE("Wrong values are rejected with the path of the value", "[recording][snapshot_json]") {
  struct Case {
    const char* pointer;  // JSON pointer into a valid document
    json value;
    const char* expected;
  };
  const std::vector<Case> cases = {
      {"/seq", -1, "seq: expected an unsigned integer"},
      {"/hostname", 5, "hostname: expected a string"},
      {"/devices/0/ports/1/counters/port_xmit_data", -5,
       "devices[0].ports[1].counters.port_xmit_data: expected an unsigned integer"},
      {"/devices/0/ports/0/counters/port_xmit_data", 1.5,
       "devices[0].ports[0].counters.port_xmit_data: expected an unsigned integer"},
      {"/devices/0/ports/0/port", 1ULL << 32, "devices[0].ports[0].port: out of 32-bit range"},
      {"/devices/0/ports/0/gids/1/gid", nullptr,
       "devices[0].ports[0].gids[1].gid: expected a string"},
      {"/devices/0/hw_counters", json::array(),
       "devices[0].hw_counters: expected an object of counters"},
      {"/netdevs/0/speed_mbps", kMax, "netdevs[0].speed_mbps: out of 64-bit signed range"},
      {"/netdevs/0/pause/rx", "yes", "netdevs[0].pause.rx: expected true or false"},
      {"/netdevs/0/driver", 3, "netdevs[0].driver: expected an object"},
      {"/sources/1/state", "broken", "sources[1].state: unknown source state \"broken\""},
      {"/sources", json::object(), "sources: expected an array"},
      {"/devices/0/ports/0/rate_gbps", "fast", "devices[0].ports[0].rate_gbps: expected a number"},
      {"/probes/0/sent", -1, "probes[0].sent: expected an unsigned integer"},
      {"/probes/0/bucket_counts", json::array({1u, 2u}),
       "probes[0].bucket_counts: expected as many counts as bucket_upper_seconds"},
      {"/probes/0/bucket_upper_seconds/1", "x",
       "probes[0].bucket_upper_seconds[1]: expected a number"},
      {"/probes/0/wc_errors/RNR retry counter exceeded", true,
       "probes[0].wc_errors.RNR retry counter exceeded: expected an unsigned integer"},
      {"/probes/1/window", json::array(), "probes[1].window: expected an object"},
      {"/probes/0/traffic_class", 1ULL << 32, "probes[0].traffic_class: out of 32-bit range"},
      {"/prober/qps", "many", "prober.qps: expected an unsigned integer"},
      {"/probes", json::object(), "probes: expected an array"},
  };
  const json valid = json::parse(snapshot_to_json(full_snapshot(), kStart).dump());
  for (const auto& c : cases) {
    INFO(c.pointer);
    json doc = valid;
    doc[json::json_pointer(c.pointer)] = c.value;
    const auto result = snapshot_from_json(doc);
    REQUIRE_FALSE(result.ok());
    CHECK(result.error().message == c.expected);
  }
}

TEST_CASE("Missing keys and non-objects are named", "[recording][snapshot_json]") {
  json doc = json::parse(snapshot_to_json(full_snapshot(), kStart).dump());
  doc["devices"][0].erase("fw_ver");
  auto r = snapshot_from_json(doc);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == "devices[0].fw_ver: missing");
  for (const json& bad : {json(nullptr), json(42), json::array(), json("text")}) {
    const auto result = snapshot_from_json(bad);
    REQUIRE_FALSE(result.ok());
    CHECK(result.error().message == "snapshot: expected an object");
  }
}

TEST_CASE("Unknown keys from a newer writer are ignored", "[recording][snapshot_json]") {
  json doc = json::parse(snapshot_to_json(full_snapshot(), kStart).dump());
  doc["future_key"] = {1, 2, 3};
  doc["devices"][0]["ports"][0]["future"] = "x";
  const auto r = snapshot_from_json(doc, kStart);
  REQUIRE(r.ok());
  CHECK(r.value() == full_snapshot());
}

TEST_CASE("Keys added to version 1 later are optional on read", "[recording][snapshot_json]") {
  // A file from before counter_source / optional_counters / resources existed still opens.
  json doc = json::parse(snapshot_to_json(full_snapshot(), kStart).dump());
  doc["devices"][0].erase("resources");
  for (auto& port : doc["devices"][0]["ports"]) {
    port.erase("counter_source");
    port.erase("optional_counters");
  }
  const auto r = snapshot_from_json(doc, kStart);
  REQUIRE(r.ok());
  CHECK(r->devices[0].resources.empty());
  CHECK(r->devices[0].ports[0].counter_source.empty());
  CHECK(r->devices[0].ports[0].optional_counters.empty());
  doc["devices"][0]["ports"][0]["optional_counters"] = {{"x", 1}};
  const auto bad = snapshot_from_json(doc, kStart);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message == "devices[0].ports[0].optional_counters.x: expected true or false");
}

TEST_CASE("QP counters: unread stays unread, older files read without them, bad QPNs named",
          "[recording][snapshot_json]") {
  Snapshot s = full_snapshot();
  s.devices[0].ports[0].qp_counter_mode.reset();
  s.devices[0].ports[0].bound_counters.clear();
  const Snapshot back = round_trip(s);
  CHECK(back == s);
  CHECK_FALSE(back.devices[0].ports[0].qp_counter_mode.has_value());
  REQUIRE(back.devices[0].ports[1].qp_counter_mode.has_value());
  CHECK(back.devices[0].ports[1].bound_counters.size() == 2);

  json doc = json::parse(snapshot_to_json(full_snapshot(), kStart).dump());
  CHECK(doc["devices"][0]["ports"][0]["bound_counters"][1]["pid"].is_null());
  doc["devices"][0]["ports"][0].erase("qp_counter_mode");
  doc["devices"][0]["ports"][0].erase("bound_counters");
  const auto old = snapshot_from_json(doc, kStart);
  REQUIRE(old.ok());
  CHECK_FALSE(old->devices[0].ports[0].qp_counter_mode.has_value());
  CHECK(old->devices[0].ports[0].bound_counters.empty());

  doc["devices"][0]["ports"][1]["bound_counters"][0]["qpns"][1] = 1LL << 32;
  const auto bad = snapshot_from_json(doc, kStart);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("devices[0].ports[1].bound_counters[0].qpns[1]") !=
        std::string::npos);
}

TEST_CASE("Host configuration: absent stays absent, older files read without it",
          "[recording][snapshot_json]") {
  Snapshot s = full_snapshot();
  s.devices[0].devlink.reset();
  s.devices[0].numa_node.reset();
  s.netdevs[0].dcb->pfc_enabled.reset();
  s.netdevs[0].dcb->ets_prio_tc.clear();
  s.netdevs[0].pfc_prevention_tout_ms.reset();
  CHECK(round_trip(s) == s);

  json doc = json::parse(snapshot_to_json(full_snapshot(), kStart).dump());
  for (auto& d : doc["devices"]) {
    d.erase("devlink");
    d.erase("numa_node");
    d.erase("irqs");
  }
  for (auto& n : doc["netdevs"]) {
    n.erase("dcb");
    n.erase("pfc_prevention_tout_ms");
  }
  doc.erase("rdma_processes");
  auto back = snapshot_from_json(doc, kStart);
  REQUIRE(back.ok());
  CHECK_FALSE(back->devices[0].devlink);
  CHECK(back->devices[0].irqs.empty());
  CHECK_FALSE(back->netdevs[0].dcb);
  CHECK(back->rdma_processes.empty());
}

TEST_CASE("Host configuration values out of range are rejected with their path",
          "[recording][snapshot_json]") {
  json doc = json::parse(snapshot_to_json(full_snapshot(), kStart).dump());
  doc["netdevs"][0]["dcb"]["pfc_enabled"] = 256;
  auto r = snapshot_from_json(doc, kStart);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("netdevs[0].dcb.pfc_enabled") != std::string::npos);
  doc = json::parse(snapshot_to_json(full_snapshot(), kStart).dump());
  doc["devices"][0]["devlink"]["reporters"][0]["error_count"] = "many";
  r = snapshot_from_json(doc, kStart);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("devices[0].devlink.reporters[0].error_count") != std::string::npos);
  doc = json::parse(snapshot_to_json(full_snapshot(), kStart).dump());
  doc["rdma_processes"][1]["cpu_numa_nodes"][0] = -3000000000LL;
  r = snapshot_from_json(doc, kStart);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("rdma_processes[1].cpu_numa_nodes[0]") != std::string::npos);
}
