// The JSON report: everything the text shows plus every raw value, under a format name and
// version (docs/report-format.md). nlohmann::ordered_json keeps keys in a stable order.
#include <fmt/chrono.h>
#include <fmt/format.h>
#include <chrono>

#include <cmath>
#include <nlohmann/json.hpp>

#include "exporters/report/config_section.h"
#include "exporters/report/coverage_section.h"
#include "exporters/report/fast_path_section.h"
#include "exporters/report/probe_section.h"
#include "exporters/report/qp_counter_section.h"
#include "exporters/report/readiness_section.h"
#include "exporters/report/report_render.h"
#include "present/json_util.h"

namespace rdmatop {

namespace {

using ojson = nlohmann::ordered_json;

ojson gid_json(const GidEntry& g) {
  return ojson{{"index", g.index}, {"gid", g.gid}, {"type", g.type}, {"netdev", g.netdev}};
}

ojson rate_json(const Rate& rate) {
  ojson out{{"state", to_string(rate.state)}};
  out["per_second"] = rate_has_value(rate) ? ojson(rate.per_second) : ojson(nullptr);
  return out;
}

ojson labels_json(const Labels& labels) {
  ojson out = ojson::object();
  for (const auto& [name, value] : labels) out[name] = value;
  return out;
}

ojson series_json(const SeriesWithRate& s) {
  ojson out{{"name", s.series.name},
            {"labels", labels_json(s.series.labels)},
            {"kind", s.series.kind == SeriesKind::counter ? "counter" : "gauge"},
            {"value", s.series.value},
            {"origin", s.series.origin}};
  if (s.series.kind == SeriesKind::counter) out["rate"] = rate_json(s.rate);
  return out;
}

// The figures of the port view (pipeline/port_view.h) under their keys: what the TUI and the
// text report show of the port, null where no series feeds a figure.
ojson figures_json(const std::vector<FigureDef>& defs,
                   const std::vector<std::optional<Rate>>& figures) {
  ojson out = ojson::object();
  for (std::size_t k = 0; k < defs.size() && k < figures.size(); ++k) {
    out[std::string(defs[k].key)] = figures[k] ? rate_json(*figures[k]) : ojson(nullptr);
  }
  return out;
}

ojson port_view_json(const PortView& view) {
  ojson priorities = ojson::array();
  for (const PriorityView& p : view.priorities) {
    priorities.push_back({{"priority", p.priority},
                          {"pfc_enabled", optional_json(p.pfc_enabled)},
                          {"figures", figures_json(priority_figure_defs(), p.figures)}});
  }
  return ojson{{"figures", figures_json(port_figure_defs(), view.figures)},
               {"priorities", std::move(priorities)}};
}

ojson port_json(const PortSample& port, const TickPort* pr) {
  ojson out{{"port", port.port},
            {"state", port.state},
            {"state_id", optional_json(port.state_id)},
            {"phys_state", port.phys_state},
            {"phys_state_id", optional_json(port.phys_state_id)},
            {"rate", port.rate_text},
            {"rate_gbps", optional_json(port.rate_gbps)},
            {"link_layer", port.link_layer},
            {"netdev", port.netdev},
            {"hw_counters_lifespan_ms", optional_json(port.hw_counters_lifespan_ms)}};
  // Stale is not current: a GID table served from the file cache says how old it is (absent
  // when it was read in this tick, as it always is without the cache).
  if (port.gid_table_age.count() > 0) {
    out["gid_table_age_s"] = std::chrono::duration<double>(port.gid_table_age).count();
  }
  out["roce_v2_gid"] = (pr && pr->roce_v2_gid) ? gid_json(*pr->roce_v2_gid) : ojson(nullptr);
  ojson gids = ojson::array();
  for (const auto& g : port.gids) gids.push_back(gid_json(g));
  out["gids"] = std::move(gids);
  out["counters"] = counters_json(port.counters);
  out["hw_counters"] = counters_json(port.hw_counters);
  out["counter_source"] = port.counter_source;
  ojson optional = ojson::object();
  for (const auto& [name, enabled] : port.optional_counters) optional[name] = enabled;
  out["optional_counters"] = std::move(optional);
  ojson series = ojson::array();
  if (pr) {
    for (const auto& s : pr->series) series.push_back(series_json(s));
  }
  out["series"] = std::move(series);
  out["view"] = pr ? port_view_json(pr->view) : ojson(nullptr);
  return out;
}

ojson report_netdev_json(const NetdevSample& nd) {
  ojson out{{"name", nd.name},
            {"mtu", optional_json(nd.mtu)},
            {"operstate", nd.operstate},
            {"carrier_changes", optional_json(nd.carrier_changes)},
            {"speed_mbps", optional_json(nd.speed_mbps)},
            {"address", nd.address}};
  out["driver"] = nd.driver ? ojson{{"driver", nd.driver->driver},
                                    {"version", nd.driver->version},
                                    {"fw_version", nd.driver->fw_version},
                                    {"bus_info", nd.driver->bus_info}}
                            : ojson(nullptr);
  out["pause"] = nd.pause ? ojson{{"autoneg", optional_json(nd.pause->autoneg)},
                                  {"rx", optional_json(nd.pause->rx)},
                                  {"tx", optional_json(nd.pause->tx)},
                                  {"rx_frames", optional_json(nd.pause->rx_frames)},
                                  {"tx_frames", optional_json(nd.pause->tx_frames)}}
                          : ojson(nullptr);
  out["statistics"] = counters_json(nd.statistics);
  out["ethtool"] = counters_json(nd.ethtool);
  return out;
}

std::string rfc3339_ms(promql::Timestamp ms) {
  if (ms == 0) return {};
  const std::chrono::system_clock::time_point t{std::chrono::milliseconds(ms)};
  return fmt::format("{:%Y-%m-%dT%H:%M:%S}.{:03}Z",
                     fmt::gmtime(std::chrono::system_clock::to_time_t(t)), ms % 1000);
}

ojson finding_json(const Finding& f) {
  ojson annotations = ojson::object();
  for (const auto& [name, value] : f.annotations) annotations[name] = value;
  ojson evidence = ojson::array();
  for (const auto& e : f.evidence) {
    ojson item{{"labels", labels_json(e.labels)}, {"value", e.value}};
    if (e.observed_increase) {
      item["observed_increase"] = *e.observed_increase;
      item["observed_span_seconds"] = static_cast<double>(e.observed_span_ms) / 1000.0;
    }
    evidence.push_back(std::move(item));
  }
  return ojson{{"rule", f.rule},
               {"group", f.group},
               {"severity", to_string(f.severity)},
               {"state", state_name(f)},
               {"kind", is_lifetime(f) ? "lifetime" : "live"},
               {"labels", labels_json(f.labels)},
               {"active_since", rfc3339_ms(f.active_since)},
               {"fired_at", f.fired_at ? ojson(rfc3339_ms(f.fired_at)) : ojson(nullptr)},
               {"resolved_at", f.resolved_at ? ojson(rfc3339_ms(f.resolved_at)) : ojson(nullptr)},
               {"value", f.value},
               {"annotations", annotations},
               {"evidence", evidence}};
}

}  // namespace

std::string render_report_json(const PublishedTick& report) {
  const Snapshot& snap = report.snapshot;
  ojson doc{
      {"format", kReportFormat},
      {"version", kReportFormatVersion},
      {"rdmatop_version", RDMATOP_VERSION},
      {"host", snap.hostname},
      {"generated_at", fmt::format("{:%Y-%m-%dT%H:%M:%SZ}",
                                   fmt::gmtime(std::chrono::system_clock::to_time_t(snap.wall)))},
      {"interval_seconds", report.interval_seconds}};
  ojson findings = ojson::array();
  for (const auto& f : report.findings) findings.push_back(finding_json(f));
  doc["findings"] = std::move(findings);
  ojson devices = ojson::array();
  for (std::size_t d = 0; d < snap.devices.size(); ++d) {
    const DeviceSample& dev = snap.devices[d];
    ojson dj{{"name", dev.name},           {"driver", dev.driver},
             {"node_type", dev.node_type}, {"fw_ver", dev.fw_ver},
             {"node_guid", dev.node_guid}, {"sys_image_guid", dev.sys_image_guid},
             {"hca_type", dev.hca_type},   {"board_id", dev.board_id},
             {"hw_rev", dev.hw_rev},       {"pci_address", dev.pci_address}};
    if (dev.static_age.count() > 0) {  // identity, links, NUMA node, IRQ list (see gid_table_age_s)
      dj["static_age_s"] = std::chrono::duration<double>(dev.static_age).count();
    }
    dj["hw_counters"] = counters_json(dev.hw_counters);
    dj["resources"] = counters_json(dev.resources);
    ojson ports = ojson::array();
    for (std::size_t p = 0; p < dev.ports.size(); ++p) {
      const TickPort* pr = nullptr;
      for (const auto& candidate : report.ports) {
        if (candidate.device_index == d && candidate.port_index == p) pr = &candidate;
      }
      ports.push_back(port_json(dev.ports[p], pr));
    }
    dj["ports"] = std::move(ports);
    devices.push_back(std::move(dj));
  }
  doc["devices"] = std::move(devices);
  ojson netdevs = ojson::array();
  for (const auto& nd : snap.netdevs) netdevs.push_back(report_netdev_json(nd));
  doc["netdevs"] = std::move(netdevs);
  doc["roce_configuration"] = render_config_json(report);
  doc["host_readiness"] = render_readiness_json(report);
  // Only when QP counters were read (RDMA netlink), so other reports keep their exact shape.
  if (auto qp_counters = render_qp_counter_json(report)) doc["qp_counters"] = *qp_counters;
  ojson sources = ojson::array();
  for (const auto& st : snap.sources) {
    sources.push_back(
        ojson{{"source", st.source},
              {"target", st.target},
              {"state", to_string(st.state)},
              {"message", st.message},
              {"duration_seconds", std::chrono::duration<double>(st.duration).count()}});
  }
  doc["sources"] = std::move(sources);
  // Only when a prober ran, so reports of hosts without one keep their exact shape.
  if (!snap.probes.empty() || snap.prober) doc["probes"] = probe_section_json(report);
  doc["rule_errors"] = report.rule_errors;
  doc["coverage"] = render_coverage_json(report);
  // Only when the fast path ran, so other reports keep their exact shape.
  if (report.fast_interval_seconds > 0) doc["fast_path"] = render_fast_path_json(report);
  // Invalid UTF-8 in a driver string must not abort the report: replace it.
  return doc.dump(2, ' ', false, ojson::error_handler_t::replace) + "\n";
}

}  // namespace rdmatop
