// The text report: inventory first (what is there and is it up), then per port the
// per-priority PFC table and every canonical series with its rate, then source health.
#include <fmt/chrono.h>
#include <fmt/format.h>

#include <cctype>
#include <map>
#include <set>

#include "collector/parse/gid.h"
#include "exporters/report/config_section.h"
#include "exporters/report/coverage_section.h"
#include "exporters/report/fast_path_section.h"
#include "exporters/report/probe_section.h"
#include "exporters/report/qp_counter_section.h"
#include "exporters/report/readiness_section.h"
#include "exporters/report/report_render.h"
#include "present/text_table.h"
#include "present/units.h"

namespace rdmatop {

namespace {

std::string or_dash(const std::string& s) {
  return s.empty() ? kAbsentCell : s;
}

template <class T>
std::string or_dash(const std::optional<T>& v) {
  return v ? fmt::format("{}", *v) : kAbsentCell;
}

/// "::ffff:c0a8:6401" style GIDs read better as the IPv4 address they carry.
std::string readable_gid(const GidEntry& gid) {
  if (classify_gid(gid.gid) != GidKind::ipv4_mapped) return gid.gid;
  const auto byte_at = [&](std::size_t pos) {
    return std::stoi(gid.gid.substr(pos, 2), nullptr, 16);
  };
  return fmt::format("{}.{}.{}.{}", byte_at(30), byte_at(32), byte_at(35), byte_at(37));
}

std::string port_name(const DeviceSample& dev, const PortSample& port) {
  return fmt::format("{}/{}", dev.name, port.port);
}

std::string inventory(const PublishedTick& report) {
  const Snapshot& snap = report.snapshot;
  TextTable table({"PORT", "DRIVER", "STATE", "PHYS", "RATE", "LINK", "NETDEV", "OPER", "MTU",
                   "FIRMWARE", "BOARD", "HCA", "ROCE V2 GID"});
  for (const TickPort& pr : report.ports) {
    const DeviceSample& dev = snap.devices[pr.device_index];
    const PortSample& port = dev.ports[pr.port_index];
    const NetdevSample* nd = pr.netdev_index ? &snap.netdevs[*pr.netdev_index] : nullptr;
    std::string rate = port.rate_text;
    if (const auto paren = rate.find(" ("); paren != std::string::npos) rate.resize(paren);
    table.add_row(
        {port_name(dev, port), or_dash(dev.driver), or_dash(port.state), or_dash(port.phys_state),
         or_dash(rate), or_dash(port.link_layer), or_dash(port.netdev),
         nd ? or_dash(nd->operstate) : kAbsentCell, nd ? or_dash(nd->mtu) : kAbsentCell,
         or_dash(dev.fw_ver), or_dash(dev.board_id), or_dash(dev.hca_type),
         pr.roce_v2_gid
             ? fmt::format("[{}] {}", pr.roce_v2_gid->index, readable_gid(*pr.roce_v2_gid))
             : "none"});
  }
  return table.empty() ? "  no RDMA ports found\n" : table.render("  ");
}

// Gauges the inventory already shows: the series list leaves them out, as it does the PFC
// table's series (is_priority_table_series; the JSON document keeps everything).
const std::set<std::string> kInventoryGauges = {
    "rdma_port_state",       "rdma_port_phys_state", "rdma_port_rate_bytes_per_second",
    "rdma_netdev_mtu_bytes", "rdma_netdev_up",       "rdma_port_roce_v2_gids",
    "rdma_port_roce_v1_gids"};
/// DCB configuration series, shown by the ROCE CONFIGURATION section (trust, DSCP map).
const std::set<std::string> kConfigSectionSeries = {"rdma_dcb_dscp_priority",
                                                    "rdma_dcb_trust_dscp"};

/// Per-priority PFC, as the port view has it (pipeline/port_view.h): share of time paused
/// (pause seconds per second), frames, transitions, traffic, discards and ECN marks, one row
/// per priority that has PFC on or any non-zero counter.
std::string pfc_table(const TickPort& pr) {
  std::vector<std::string> columns = {"PRIO", "PFC"};
  const auto& defs = priority_figure_defs();
  for (const FigureDef& def : defs) columns.emplace_back(def.title);
  TextTable table(columns);
  for (const PriorityView& pv : pr.view.priorities) {
    std::vector<std::string> row = {
        pv.priority, pv.pfc_enabled ? (*pv.pfc_enabled ? "on" : "off") : std::string(kAbsentCell)};
    for (std::size_t k = 0; k < defs.size(); ++k) {
      row.push_back(pv.figures[k] ? format_rate(*pv.figures[k], std::string(defs[k].unit))
                                  : std::string(kAbsentCell));
    }
    table.add_row(row);
  }
  return table.empty() ? "    no per-priority counters\n" : table.render("    ");
}

std::string labels_suffix(const Labels& labels) {
  static const std::set<std::string> kPortLabels = {"device", "port", "netdev", "__name__"};
  std::string out;
  for (const auto& [name, value] : labels) {
    if (kPortLabels.count(name) != 0) continue;
    out += out.empty() ? "{" : ",";
    out += name + "=" + value;
  }
  return out.empty() ? out : out + "}";
}

/// Every other canonical series with its rate. Per-priority series beyond the PFC table's
/// columns are listed only when non-zero.
std::string series_table(const TickPort& pr) {
  TextTable table({"SERIES", "VALUE", "RATE"});
  for (const auto& s : pr.series) {
    if (is_priority_table_series(s.series.name) || kInventoryGauges.count(s.series.name) != 0 ||
        kConfigSectionSeries.count(s.series.name) != 0) {
      continue;
    }
    if (!label_value(s.series.labels, "priority").empty() && s.series.value == 0) continue;
    const bool bytes = s.series.name.contains("_bytes");
    const bool seconds = s.series.name.contains("_seconds_total");
    std::string rate = kAbsentCell;
    if (s.series.kind == SeriesKind::counter) {
      rate = format_rate(s.rate, seconds ? "%" : bytes ? " B/s" : "/s");
    }
    std::string value = bytes ? format_bytes(s.series.value) : format_si(s.series.value);
    // A saturated counter's value is a lower bound (docs/metrics.md, "Saturation").
    if (s.rate.state == RateState::saturated) value = "\u2265 " + value + " (saturated)";
    table.add_row({s.series.name + labels_suffix(s.series.labels), value, rate});
  }
  return table.empty() ? "    no canonical series\n" : table.render("    ");
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string finding_text(const Finding& f) {
  std::string out = fmt::format("\n  {:<8}  {:<8}  {}  {}\n", upper(to_string(f.severity)),
                                state_name(f), f.rule, finding_place(f));
  for (const char* name : {"summary", "description"}) {
    const std::string text = annotation(f, name);
    if (!text.empty()) out += "    " + text + "\n";
  }
  for (const auto& e : f.evidence) {
    // What the counter really did, beside the rule's extrapolated `increase()` in the text.
    const std::string observed =
        e.observed_increase
            ? fmt::format(" (+{} over the last {})", format_si(*e.observed_increase),
                          format_seconds(static_cast<double>(e.observed_span_ms) / 1000.0))
            : std::string();
    out += fmt::format("    evidence: {}{} = {}{}\n", label_value(e.labels, "__name__"),
                       labels_suffix(e.labels), format_si(e.value), observed);
  }
  const std::string remediation = annotation(f, "remediation");
  if (!remediation.empty()) out += "    remediation: " + remediation + "\n";
  return out;
}

/// Live findings: from rates and current values.
std::string findings(const PublishedTick& report) {
  std::map<Severity, int> active;
  std::size_t live = 0;
  for (const auto& f : report.findings) {
    if (is_lifetime(f)) continue;
    ++live;
    if (f.state != FindingState::resolved) ++active[f.severity];
  }
  if (live == 0) {
    return report.interval_seconds > 0
               ? "  none: no rule matched\n"
               : "  none: one snapshot has no rates, so only rules over current values ran "
                 "(see HISTORY for what the totals say)\n";
  }
  std::string out =
      fmt::format("  {} critical, {} warning, {} info active", active[Severity::critical],
                  active[Severity::warning], active[Severity::info]);
  out += " (pending = true now, not yet for the rule's whole `for` duration)\n";
  for (const auto& f : report.findings) {
    if (!is_lifetime(f)) out += finding_text(f);
  }
  return out;
}

/// Lifetime evidence: what the counter totals said at the first observation.
std::string history(const PublishedTick& report) {
  std::map<Severity, int> count;
  for (const auto& f : report.findings) {
    if (is_lifetime(f)) ++count[f.severity];
  }
  if (count.empty()) return "  nothing: no error counter had counted anything\n";
  std::string out = fmt::format(
      "  {} warning, {} info: totals since the counters started (boot, driver load or reset), "
      "read at the first observation; history, not a live alarm\n",
      count[Severity::warning], count[Severity::info]);
  for (const auto& f : report.findings) {
    if (is_lifetime(f)) out += finding_text(f);
  }
  return out;
}

std::string sources(const Snapshot& snap, const std::vector<std::string>& rule_errors) {
  std::map<SourceState, int> counts;
  for (const auto& st : snap.sources) ++counts[st.state];
  std::string out = fmt::format("  {} ok, {} no data, {} errors\n", counts[SourceState::ok],
                                counts[SourceState::no_data], counts[SourceState::error]);
  TextTable table({"SOURCE", "TARGET", "STATE", "MESSAGE"});
  for (const auto& st : snap.sources) {
    if (st.state == SourceState::ok && st.message.empty()) continue;
    table.add_row({st.source, or_dash(st.target), to_string(st.state), st.message});
  }
  for (const auto& e : rule_errors) table.add_row({"rules", kAbsentCell, "error", e});
  if (!table.empty()) out += table.render("  ");
  return out;
}

}  // namespace

std::string render_report_text(const PublishedTick& report) {
  const Snapshot& snap = report.snapshot;
  std::string out = fmt::format(
      "rdmatop {} report: host {}, {:%Y-%m-%d %H:%M:%S} UTC, interval {:.2f} s\n\n",
      RDMATOP_VERSION, or_dash(snap.hostname),
      fmt::gmtime(std::chrono::system_clock::to_time_t(snap.wall)), report.interval_seconds);
  out += "FINDINGS\n" + findings(report);
  out += "\nHISTORY (lifetime evidence)\n" + history(report);
  out += "\nINVENTORY\n" + inventory(report);
  for (const TickPort& pr : report.ports) {
    const DeviceSample& dev = snap.devices[pr.device_index];
    const PortSample& port = dev.ports[pr.port_index];
    out += fmt::format("\nPORT {} ({}, {})\n", port_name(dev, port), or_dash(port.netdev),
                       or_dash(port.state));
    out += "  PFC per priority\n" + pfc_table(pr);
    out += "  Canonical series (per-priority zeros omitted; --json has every value)\n" +
           series_table(pr);
  }
  if (const std::string probes = render_probe_section_text(report); !probes.empty()) {
    out += "\nPROBES\n" + probes;
  }
  out += "\nROCE CONFIGURATION\n" + render_config_text(report);
  out += "\nHOST READINESS\n" + render_readiness_text(report);
  if (const std::string qp = render_qp_counter_text(report); !qp.empty()) {
    out += "\nQP COUNTERS\n" + qp;
  }
  out += "\nCOVERAGE\n" + render_coverage_text(report);
  if (const std::string fast = render_fast_path_text(report); !fast.empty()) {
    out += "\nFAST PATH\n" + fast;
  }
  out += "\nSOURCES\n" + sources(snap, report.rule_errors);
  return out;
}

}  // namespace rdmatop
