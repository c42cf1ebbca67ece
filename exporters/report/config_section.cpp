#include "exporters/report/config_section.h"

#include "present/units.h"

#include <fmt/format.h>

#include "collector/normalize/host_config_series.h"
#include "collector/parse/dcbnl_parse.h"
#include "present/host_config_json.h"
#include "present/json_util.h"
#include "present/text_table.h"

namespace rdmatop {
namespace {

using ojson = nlohmann::ordered_json;
constexpr int kPriorities = 8;
constexpr std::uint8_t kSelectorDscp = 5;  // IEEE_8021QAZ_APP_SEL_DSCP
constexpr std::uint16_t kStormAuto = 0xffff;

const NetdevSample* netdev_of(const PublishedTick& report, const TickPort& pr) {
  return pr.netdev_index ? &report.snapshot.netdevs[*pr.netdev_index] : nullptr;
}

std::string yes_no(const std::optional<bool>& b) {
  return b ? (*b ? "on" : "off") : kAbsentCell;
}

/// ETS transmission selection algorithm names as `dcb ets show` prints them.
std::string tsa_name(std::uint8_t tsa) {
  switch (tsa) {
    case 0:
      return "strict";
    case 1:
      return "cbs";
    case 2:
      return "ets";
    case 255:
      return "vendor";
    default:
      return std::to_string(tsa);
  }
}

std::string storm_text(const std::optional<std::uint16_t>& ms) {
  if (!ms) return "- (not available)";
  if (*ms == 0) return "0 (disabled)";
  if (*ms == kStormAuto) {
    return fmt::format("auto ({:g} ms)", pfc_storm_prevention_seconds(*ms) * 1e3);
  }
  return fmt::format("{} ms", *ms);
}

std::string dscp_map(const DcbInfo& dcb) {
  std::string out;
  for (const auto& a : dcb.app) {
    if (a.selector != kSelectorDscp) continue;
    out += fmt::format("{}{}->{}", out.empty() ? "" : " ", a.protocol, a.priority);
  }
  return out.empty() ? kAbsentCell : out;
}

std::string other_apps(const DcbInfo& dcb) {
  std::string out;
  for (const auto& a : dcb.app) {
    if (a.selector == kSelectorDscp) continue;
    out += fmt::format("{}{} {}->{}", out.empty() ? "" : ", ", dcb_selector_name(a.selector),
                       a.protocol, a.priority);
  }
  return out;
}

std::string dcb_table(const DcbInfo& dcb) {
  TextTable table({"PRIO", "PFC", "TC", "TC BW%", "TC TSA", "PFC REQUESTS", "PFC INDICATIONS"});
  for (int p = 0; p < kPriorities; ++p) {
    const auto at = [p](const auto& v) -> std::string {
      return static_cast<std::size_t>(p) < v.size() ? std::to_string(v[static_cast<std::size_t>(p)])
                                                    : kAbsentCell;
    };
    std::string tc = at(dcb.ets_prio_tc);
    std::string bw = kAbsentCell;
    std::string tsa = kAbsentCell;
    // Bandwidth and TSA are per traffic class; shown on the priority's row for its class.
    if (static_cast<std::size_t>(p) < dcb.ets_prio_tc.size()) {
      const std::size_t c = dcb.ets_prio_tc[static_cast<std::size_t>(p)];
      if (c < dcb.ets_tc_bw.size()) bw = std::to_string(dcb.ets_tc_bw[c]);
      if (c < dcb.ets_tc_tsa.size()) tsa = tsa_name(dcb.ets_tc_tsa[c]);
    }
    const std::string pfc =
        dcb.pfc_enabled ? (((*dcb.pfc_enabled >> p) & 1U) != 0 ? "on" : "off") : kAbsentCell;
    table.add_row(
        {std::to_string(p), pfc, tc, bw, tsa, at(dcb.pfc_requests), at(dcb.pfc_indications)});
  }
  return table.render("      ");
}

std::string port_text(const PublishedTick& report, const TickPort& pr) {
  const DeviceSample& dev = report.snapshot.devices[pr.device_index];
  const PortSample& port = dev.ports[pr.port_index];
  const NetdevSample* nd = netdev_of(report, pr);
  std::string out = fmt::format("  {}/{} ({})\n", dev.name, port.port,
                                port.netdev.empty() ? std::string(kAbsentCell) : port.netdev);
  if (nd == nullptr) return out + "    no netdev data\n";
  if (nd->dcb) {
    const DcbInfo& dcb = *nd->dcb;
    out += fmt::format("    DCB: trust {}, DSCP->priority {}\n",
                       dcb.trust.empty() ? kAbsentCell : dcb.trust, dscp_map(dcb));
    if (const std::string apps = other_apps(dcb); !apps.empty()) {
      out += "    other APP entries: " + apps + "\n";
    }
    out += dcb_table(dcb);
  } else {
    out += "    DCB: not available\n";
  }
  out += "    PFC storm prevention: " + storm_text(nd->pfc_prevention_tout_ms) + "\n";
  if (nd->pause) {
    out += fmt::format("    link pause: autoneg {}, rx {}, tx {}\n", yes_no(nd->pause->autoneg),
                       yes_no(nd->pause->rx), yes_no(nd->pause->tx));
  } else {
    out += "    link pause: -\n";
  }
  return out;
}

std::string version_of(const std::map<std::string, std::string, std::less<>>& m) {
  const auto it = m.find("fw.version");
  return it == m.end() ? kAbsentCell : it->second;
}

std::string device_text(const DeviceSample& dev) {
  if (!dev.devlink) return fmt::format("  {}: no devlink data\n", dev.name);
  const DevlinkInfo& d = *dev.devlink;
  const std::string running = version_of(d.running);
  const std::string stored = version_of(d.stored);
  const bool pending =
      !d.stored.empty() && stored != kAbsentCell && running != kAbsentCell && stored != running;
  std::string out =
      fmt::format("  {}: devlink {}/{}, driver {}, firmware running {}, stored {}{}\n", dev.name,
                  d.bus_name, d.dev_name, d.driver.empty() ? kAbsentCell : d.driver, running,
                  stored, pending ? " (ACTIVATION PENDING)" : "");
  if (d.reporters.empty()) return out + "    no health reporters\n";
  TextTable table({"REPORTER", "STATE", "ERRORS", "RECOVERS", "GRACE ms", "AUTO RECOVER"});
  const auto num = [](const std::optional<std::uint64_t>& v) {
    return v ? std::to_string(*v) : std::string(kAbsentCell);
  };
  for (const auto& r : d.reporters) {
    table.add_row({r.name, r.state.empty() ? kAbsentCell : r.state, num(r.error_count),
                   num(r.recover_count), num(r.grace_period_ms), yes_no(r.auto_recover)});
  }
  return out + table.render("    ");
}

}  // namespace

std::string render_config_text(const PublishedTick& report) {
  std::string out;
  for (const TickPort& pr : report.ports) out += port_text(report, pr);
  for (const DeviceSample& dev : report.snapshot.devices) out += device_text(dev);
  return out.empty() ? "  no RDMA devices\n" : out;
}

ojson render_config_json(const PublishedTick& report) {
  ojson ports = ojson::array();
  for (const TickPort& pr : report.ports) {
    const DeviceSample& dev = report.snapshot.devices[pr.device_index];
    const PortSample& port = dev.ports[pr.port_index];
    const NetdevSample* nd = netdev_of(report, pr);
    ojson pfc = nullptr;
    if (nd != nullptr && nd->dcb && nd->dcb->pfc_enabled) {
      pfc = ojson::array();
      for (int p = 0; p < kPriorities; ++p) pfc.push_back(((*nd->dcb->pfc_enabled >> p) & 1U) != 0);
    }
    ojson dscp = ojson::object();
    if (nd != nullptr && nd->dcb) {
      for (const auto& a : nd->dcb->app) {
        if (a.selector == kSelectorDscp) dscp[std::to_string(a.protocol)] = a.priority;
      }
    }
    ojson storm = nullptr;
    if (nd != nullptr && nd->pfc_prevention_tout_ms) {
      storm = pfc_storm_prevention_seconds(*nd->pfc_prevention_tout_ms);
    }
    ojson pause = nullptr;
    if (nd != nullptr && nd->pause) {
      pause = {{"autoneg", optional_json(nd->pause->autoneg)},
               {"rx", optional_json(nd->pause->rx)},
               {"tx", optional_json(nd->pause->tx)}};
    }
    ports.push_back({{"device", dev.name},
                     {"port", port.port},
                     {"netdev", port.netdev},
                     {"pfc_enabled", std::move(pfc)},
                     {"dscp_priority", std::move(dscp)},
                     {"dcb", dcb_json(nd != nullptr ? nd->dcb : std::nullopt)},
                     {"pfc_prevention_tout_ms",
                      nd != nullptr ? optional_json(nd->pfc_prevention_tout_ms) : ojson(nullptr)},
                     {"pfc_storm_prevention_seconds", std::move(storm)},
                     {"link_pause", std::move(pause)}});
  }
  ojson devices = ojson::array();
  for (const DeviceSample& dev : report.snapshot.devices) {
    devices.push_back({{"device", dev.name}, {"devlink", devlink_json(dev.devlink)}});
  }
  return {{"ports", std::move(ports)}, {"devices", std::move(devices)}};
}

}  // namespace rdmatop
