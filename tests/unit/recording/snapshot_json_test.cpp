#include <catch2/catch.hpp>
#include <limits>
#include <nlohmann/json.hpp>

#include "exporters/recording/snapshot_json.h"

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
  p.gids = {{0, "fe80:0000:0000:0000:ba59:9fff:fea1:b2c4", "IB/RoCE v1", "ens1f0np0"},
            {3, "0000:0000:0000:0000:0000:ffff:c0a8:6401", "RoCE v2", "ens1f0np0"}};
  p.counters = {{"port_xmit_data", kMax - 3}, {"port_rcv_data", 1ULL << 63}};
  p.hw_counters = {{"rx_write_requests", 18'446'744'073'709'551'000ULL}};
  p.hw_counters_lifespan_ms = 10;
  p.counter_source = "netlink";
  p.optional_counters = {{"lifespan_probe", true}, {"rx_icrc_encapsulated", false}};
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
  s.netdevs.push_back(n);
  s.sources = {{"sysfs", "mlx5_0/1", SourceState::ok, "", std::chrono::nanoseconds(400'123)},
               {"ethtool", "ens1f0np0", SourceState::error, "ioctl: Operation not supported",
                std::chrono::nanoseconds(9)},
               {"devlink", "", SourceState::no_data, "no devlink", std::chrono::nanoseconds(0)}};
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
