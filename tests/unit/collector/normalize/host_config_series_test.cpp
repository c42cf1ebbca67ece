// Host configuration series: DCB PFC per priority (replacing the mlx5 inference), the storm
// prevention tunable, firmware info / activation pending, devlink reporters, NUMA node; and
// docs/metrics.md listing every family.
#include <catch2/catch.hpp>

#include <optional>
#include <string>

#include "collector/normalize/host_config_series.h"
#include "collector/normalize/normalizer.h"

namespace rdmatop {
namespace {

Snapshot mlx5_config_snapshot() {
  Snapshot s;
  DeviceSample d;
  d.name = "mlx5_0";
  d.driver = "mlx5";
  PortSample p;
  p.port = 1;
  p.netdev = "eth0";
  d.ports.push_back(p);
  s.devices.push_back(d);
  NetdevSample n;
  n.name = "eth0";
  // mlx5e emits rx_prio3_pause only when PFC is on for 3: the inference says "3 on".
  n.ethtool = {{"rx_prio0_bytes", 1}, {"rx_prio3_pause", 0}};
  s.netdevs.push_back(n);
  return s;
}

std::optional<double> value(const std::vector<Series>& series, const std::string& name,
                            const Labels& extra = {}) {
  for (const auto& s : series) {
    if (s.name != name) continue;
    bool match = true;
    for (const auto& [k, v] : extra) match = match && label_value(s.labels, k) == v;
    if (match) return s.value;
  }
  return std::nullopt;
}

TEST_CASE("rdma_pfc_enabled comes from DCB when read, from the ethtool inference otherwise",
          "[normalize][host_config]") {
  Snapshot s = mlx5_config_snapshot();
  auto inferred = normalize(s);
  CHECK(value(inferred, "rdma_pfc_enabled", {{"priority", "3"}}) == 1.0);
  CHECK(value(inferred, "rdma_pfc_enabled", {{"priority", "4"}}) == 0.0);
  DcbInfo dcb;
  dcb.pfc_enabled = 0x10;  // priority 4 only
  s.netdevs[0].dcb = dcb;
  auto configured = normalize(s);
  CHECK(value(configured, "rdma_pfc_enabled", {{"priority", "3"}}) == 0.0);
  CHECK(value(configured, "rdma_pfc_enabled", {{"priority", "4"}}) == 1.0);
  int count = 0;
  for (const auto& x : configured) count += x.name == "rdma_pfc_enabled" ? 1 : 0;
  CHECK(count == 8);
}

TEST_CASE("DCB APP DSCP entries and the trust table", "[normalize][host_config]") {
  Snapshot s = mlx5_config_snapshot();
  CHECK_FALSE(value(normalize(s), "rdma_dcb_dscp_priority"));  // no DCB data: absent
  DcbInfo dcb;
  dcb.app = {{5, 26, 3}, {5, 48, 6}, {1, 0x8915, 3}};  // DSCP 26 -> 3, DSCP 48 -> 6, ethertype
  s.netdevs[0].dcb = dcb;
  auto series = normalize(s);
  CHECK(value(series, "rdma_dcb_dscp_priority", {{"dscp", "26"}, {"priority", "3"}}) == 1.0);
  CHECK(value(series, "rdma_dcb_dscp_priority", {{"dscp", "48"}, {"priority", "6"}}) == 1.0);
  int entries = 0;
  for (const auto& x : series) entries += x.name == "rdma_dcb_dscp_priority" ? 1 : 0;
  CHECK(entries == 2);                                // the ethertype entry is not a DSCP mapping
  CHECK_FALSE(value(series, "rdma_dcb_trust_dscp"));  // mlx5: no trust table
  s.netdevs[0].dcb->trust = "pcp";
  CHECK(value(normalize(s), "rdma_dcb_trust_dscp") == 0.0);
  s.netdevs[0].dcb->trust = "pcp dscp";
  CHECK(value(normalize(s), "rdma_dcb_trust_dscp") == 1.0);
}

TEST_CASE("rdma_firmware_info from sysfs fw_ver and board_id when devlink has none",
          "[normalize][host_config]") {
  Snapshot s = mlx5_config_snapshot();
  s.devices[0].fw_ver = "22.41.1000";
  s.devices[0].board_id = "MT_0000000359";
  auto series = normalize(s);
  CHECK(value(series, "rdma_firmware_info",
              {{"source", "sysfs"},
               {"running", "22.41.1000"},
               {"psid", "MT_0000000359"},
               {"driver", "mlx5"}}) == 1.0);
  // The netdev's Ethernet driver names it as devlink would.
  s.netdevs[0].driver = DriverInfo{"mlx5_core", "", "", ""};
  CHECK(value(normalize(s), "rdma_firmware_info", {{"driver", "mlx5_core"}}) == 1.0);
  // devlink wins when it reports a running version: one series per device.
  DevlinkInfo dl;
  dl.driver = "mlx5_core";
  dl.running = {{"fw.version", "22.41.1000"}};
  s.devices[0].devlink = dl;
  series = normalize(s);
  int count = 0;
  for (const auto& x : series) count += x.name == "rdma_firmware_info" ? 1 : 0;
  CHECK(count == 1);
  CHECK(value(series, "rdma_firmware_info", {{"source", "devlink"}}) == 1.0);
  // No fw_ver (rxe): nothing.
  Snapshot r = mlx5_config_snapshot();
  CHECK_FALSE(value(normalize(r), "rdma_firmware_info"));
}

TEST_CASE("pfc_storm_prevention_seconds: disabled, auto, milliseconds",
          "[normalize][host_config]") {
  CHECK(pfc_storm_prevention_seconds(0) == 0.0);
  CHECK(pfc_storm_prevention_seconds(0xffff) == Approx(0.1));
  CHECK(pfc_storm_prevention_seconds(500) == Approx(0.5));
  Snapshot s = mlx5_config_snapshot();
  s.netdevs[0].pfc_prevention_tout_ms = 0;
  CHECK(value(normalize(s), "rdma_pfc_storm_prevention_seconds") == 0.0);
  s.netdevs[0].pfc_prevention_tout_ms.reset();
  CHECK_FALSE(value(normalize(s), "rdma_pfc_storm_prevention_seconds"));
}

TEST_CASE("devlink series: firmware info, activation pending, reporters",
          "[normalize][host_config]") {
  Snapshot s = mlx5_config_snapshot();
  DevlinkInfo dl;
  dl.driver = "mlx5_core";
  dl.running = {{"fw.version", "16.35.2000"}};
  dl.stored = {{"fw.version", "16.35.3006"}};
  dl.reporters = {{"fw", "healthy", 0, 0, {}, {}, {}, {}},
                  {"fw_fatal", "error", 3, std::nullopt, {}, {}, {}, {}}};
  s.devices[0].devlink = dl;
  s.devices[0].numa_node = 1;
  auto series = normalize(s);
  CHECK(value(series, "rdma_firmware_activation_pending") == 1.0);
  CHECK(value(series, "rdma_firmware_info",
              {{"running", "16.35.2000"}, {"stored", "16.35.3006"}, {"driver", "mlx5_core"}}) ==
        1.0);
  // No PSID reported: no psid label at all (not an empty one).
  for (const auto& x : series) {
    if (x.name != "rdma_firmware_info") continue;
    for (const auto& label : x.labels) CHECK(label.first != "psid");
  }
  // The board's PSID is a fixed version (mlx5); a running "fw.psid" is not a board identity.
  s.devices[0].devlink->running["fw.psid"] = "0.0.6";
  CHECK(value(normalize(s), "rdma_firmware_info", {{"psid", "0.0.6"}}) == std::nullopt);
  s.devices[0].devlink->fixed["fw.psid"] = "MT_0000000359";
  CHECK(value(normalize(s), "rdma_firmware_info", {{"psid", "MT_0000000359"}}) == 1.0);
  s.devices[0].devlink->running.erase("fw.psid");
  CHECK(value(series, "rdma_devlink_health_error", {{"reporter", "fw_fatal"}}) == 1.0);
  CHECK(value(series, "rdma_devlink_health_error", {{"reporter", "fw"}}) == 0.0);
  CHECK(value(series, "rdma_devlink_health_errors_total", {{"reporter", "fw_fatal"}}) == 3.0);
  CHECK_FALSE(value(series, "rdma_devlink_health_recovers_total", {{"reporter", "fw_fatal"}}));
  CHECK(value(series, "rdma_device_numa_node") == 1.0);

  // bnxt_en names its firmware with the generic "fw" only; "fw.version" wins when both exist.
  DevlinkInfo bnxt;
  bnxt.driver = "bnxt_en";
  bnxt.running = {{"fw", "227.0.131.0"}};
  bnxt.stored = {{"fw", "227.1.111.0"}};
  Snapshot b = mlx5_config_snapshot();
  b.devices[0].devlink = bnxt;
  CHECK(value(normalize(b), "rdma_firmware_info",
              {{"running", "227.0.131.0"}, {"stored", "227.1.111.0"}, {"driver", "bnxt_en"}}) ==
        1.0);
  CHECK(value(normalize(b), "rdma_firmware_activation_pending") == 1.0);
  s.devices[0].devlink->running["fw"] = "ignored";
  CHECK(value(normalize(s), "rdma_firmware_info", {{"running", "16.35.2000"}}) == 1.0);
  s.devices[0].devlink->running.erase("fw");

  s.devices[0].devlink->stored = s.devices[0].devlink->running;
  CHECK(value(normalize(s), "rdma_firmware_activation_pending") == 0.0);
  s.devices[0].devlink->stored.clear();
  CHECK_FALSE(value(normalize(s), "rdma_firmware_activation_pending"));
}

}  // namespace
}  // namespace rdmatop
