#include "collector/normalize/host_config_series.h"

#include <map>
#include <string>
#include <utility>

#include "collector/normalize/process_series.h"
#include "collector/normalize/qp_counter_series.h"

namespace rdmatop {
namespace {

/// IEEE_8021QAZ_APP_SEL_DSCP (include/uapi/linux/dcbnl.h): the APP entry's protocol is a DSCP.
constexpr std::uint8_t kAppSelectorDscp = 5;
/// mlx5's value for PFC_STORM_PREVENTION_AUTO (en_ethtool.c MLX5E_PFC_PREVEN_AUTO_TOUT_MSEC).
constexpr double kAutoSeconds = 0.1;
constexpr std::uint16_t kAuto = 0xffff;
constexpr double kMillisecondsPerSecond = 1e3;

void add_port_config(const DeviceSample& device, const PortSample& port, const NetdevSample& netdev,
                     std::vector<Series>& out) {
  const Labels base{
      {"device", device.name}, {"port", std::to_string(port.port)}, {"netdev", netdev.name}};
  if (netdev.dcb && netdev.dcb->pfc_enabled) {
    for (int p = 0; p < 8; ++p) {
      Labels labels = base;
      labels.emplace_back("priority", std::to_string(p));
      add_series(out, "rdma_pfc_enabled", std::move(labels), SeriesKind::gauge,
                 (*netdev.dcb->pfc_enabled >> p) & 1U, "dcb/pfc_en");
    }
  }
  if (netdev.dcb) {
    const DcbInfo& dcb = *netdev.dcb;
    // The APP trust table (DCB_ATTR_DCB_APP_TRUST_TABLE, dcbnl_getapptrust): selectors in
    // order of precedence. mlx5 has none: it lists the DSCP APP entries exactly while it
    // trusts DSCP (en_dcbnl.c mlx5e_dcbnl_dscp_app: all 64 entries, "No SEL_DSCP entry in non
    // DSCP state").
    if (!dcb.trust.empty()) {
      const bool dscp = (" " + dcb.trust + " ").find(" dscp ") != std::string::npos;
      add_series(out, "rdma_dcb_trust_dscp", base, SeriesKind::gauge, dscp ? 1 : 0, "dcb/trust");
    }
    for (const DcbAppEntry& app : dcb.app) {
      if (app.selector != kAppSelectorDscp) continue;
      Labels labels = base;
      labels.emplace_back("dscp", std::to_string(app.protocol));
      labels.emplace_back("priority", std::to_string(app.priority));
      add_series(out, "rdma_dcb_dscp_priority", std::move(labels), SeriesKind::gauge, 1, "dcb/app");
    }
  }
  if (netdev.pfc_prevention_tout_ms) {
    add_series(out, "rdma_pfc_storm_prevention_seconds", base, SeriesKind::gauge,
               pfc_storm_prevention_seconds(*netdev.pfc_prevention_tout_ms),
               "ethtool/pfc-prevention-tout");
  }
}

/// The firmware version of one kind: mlx5's "fw.version", else the generic "fw" ("overall
/// firmware version", Documentation/networking/devlink/devlink-info.rst) that bnxt_en reports.
std::map<std::string, std::string, std::less<>>::const_iterator firmware_version(
    const std::map<std::string, std::string, std::less<>>& versions) {
  const auto specific = versions.find("fw.version");
  return specific != versions.end() ? specific : versions.find("fw");
}

void add_devlink(const DeviceSample& device, std::vector<Series>& out) {
  if (!device.devlink) return;
  const DevlinkInfo& info = *device.devlink;
  const auto running = firmware_version(info.running);
  if (running != info.running.end()) {
    Labels labels{{"device", device.name},
                  {"driver", info.driver},
                  {"running", running->second},
                  {"source", "devlink"}};
    // The board identity firmware images are built for (docs/domain.md#firmware: version skew is
    // judged among devices of one PSID). Only a fixed fw.psid (mlx5) names the board; other
    // drivers use the name for a versioned parameter set, so it is not taken from running.
    if (const auto psid = info.fixed.find("fw.psid"); psid != info.fixed.end()) {
      labels.emplace_back("psid", psid->second);
    }
    const auto stored = firmware_version(info.stored);
    if (stored != info.stored.end()) {
      labels.emplace_back("stored", stored->second);
      add_series(out, "rdma_firmware_activation_pending", {{"device", device.name}},
                 SeriesKind::gauge, stored->second != running->second ? 1 : 0, "devlink/info");
    }
    add_series(out, "rdma_firmware_info", std::move(labels), SeriesKind::gauge, 1, "devlink/info");
  }
  for (const auto& r : info.reporters) {
    const Labels labels{{"device", device.name}, {"reporter", r.name}};
    const std::string origin = "devlink/health/" + r.name;
    if (!r.state.empty()) {
      add_series(out, "rdma_devlink_health_error", labels, SeriesKind::gauge,
                 r.state == "error" ? 1 : 0, origin);
    }
    if (r.error_count) {
      add_series(out, "rdma_devlink_health_errors_total", labels, SeriesKind::counter,
                 static_cast<double>(*r.error_count), origin);
    }
    if (r.recover_count) {
      add_series(out, "rdma_devlink_health_recovers_total", labels, SeriesKind::counter,
                 static_cast<double>(*r.recover_count), origin);
    }
  }
}

/// The firmware identity from sysfs when devlink gave none (no devlink instance, not read, or
/// offline data, which never has devlink): class/infiniband/<dev>/fw_ver as the running
/// version (mlx5 prints the same "16.35.2000" as devlink fw.version) and board_id as the board
/// identity (mlx5: the PSID, as devlink's fixed fw.psid). The driver label is the Ethernet
/// driver of the device's netdev (`ethtool -i`, what devlink reports), else the RDMA driver, so
/// that devices of one fleet compare whichever source each host had.
void add_sysfs_firmware(const Snapshot& snapshot, const DeviceSample& device,
                        std::vector<Series>& out) {
  if (device.fw_ver.empty()) return;
  if (device.devlink && firmware_version(device.devlink->running) != device.devlink->running.end())
    return;
  std::string driver = device.driver;
  for (const PortSample& port : device.ports) {
    const NetdevSample* netdev = find_netdev(snapshot, port.netdev);
    if (netdev != nullptr && netdev->driver && !netdev->driver->driver.empty()) {
      driver = netdev->driver->driver;
      break;
    }
  }
  Labels labels{
      {"device", device.name}, {"driver", driver}, {"running", device.fw_ver}, {"source", "sysfs"}};
  if (!device.board_id.empty()) labels.emplace_back("psid", device.board_id);
  add_series(out, "rdma_firmware_info", std::move(labels), SeriesKind::gauge, 1, "sysfs/fw_ver");
}

}  // namespace

double pfc_storm_prevention_seconds(std::uint16_t tunable_ms) {
  if (tunable_ms == kAuto) return kAutoSeconds;
  return tunable_ms / kMillisecondsPerSecond;
}

void add_host_config_series(const Snapshot& snapshot, std::vector<Series>& out) {
  add_process_series(snapshot, out);
  add_qp_counter_series(snapshot, out);
  for (const DeviceSample& device : snapshot.devices) {
    add_devlink(device, out);
    add_sysfs_firmware(snapshot, device, out);
    if (device.numa_node) {
      add_series(out, "rdma_device_numa_node", {{"device", device.name}}, SeriesKind::gauge,
                 *device.numa_node, "sysfs/numa_node");
    }
    for (const IrqSample& irq : device.irqs) {
      add_series(out, "rdma_irq_interrupts_total",
                 {{"device", device.name}, {"irq", std::to_string(irq.irq)}, {"name", irq.name}},
                 SeriesKind::counter, static_cast<double>(irq.count), "procfs/interrupts");
    }
    for (const PortSample& port : device.ports) {
      if (const NetdevSample* netdev = find_netdev(snapshot, port.netdev)) {
        add_port_config(device, port, *netdev, out);
      }
    }
  }
}

}  // namespace rdmatop
