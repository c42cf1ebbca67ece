#include "exporters/report/probe_section.h"

#include <fmt/format.h>

#include <map>
#include <string>

#include "collector/normalize/probe_series.h"
#include "present/json_util.h"
#include "present/text_table.h"
#include "present/units.h"

namespace rdmatop {

namespace {

using ojson = nlohmann::ordered_json;

std::string count_text(std::uint64_t n) {
  return format_si(static_cast<double>(n));
}

std::string wc_errors_text(const ProbeTargetSample& p) {
  std::string out;
  for (const auto& [status, n] : p.wc_errors) {
    if (!out.empty()) out += ", ";
    out += fmt::format("{}: {}", status, n);
  }
  return out.empty() ? kAbsentCell : out;
}

ojson rtt_json(const std::optional<RttSummary>& w) {
  if (!w) return nullptr;
  return ojson{{"count", w->count}, {"min", w->min},   {"p50", w->p50}, {"p90", w->p90},
               {"p99", w->p99},     {"p999", w->p999}, {"max", w->max}};
}

ojson rate_value(const Rate& rate) {
  return rate_has_value(rate) ? ojson(rate.per_second) : ojson(nullptr);
}

}  // namespace

std::string render_probe_section_text(const PublishedTick& report) {
  const Snapshot& snap = report.snapshot;
  if (snap.probes.empty() && !snap.prober) return "";
  std::string out;
  if (snap.prober) {
    out += fmt::format("  prober: {} targets, {} QPs, {} registered, {:.2f} s CPU\n",
                       snap.prober->targets, snap.prober->qps,
                       format_bytes(static_cast<double>(snap.prober->registered_bytes)),
                       snap.prober->cpu_seconds);
  }
  TextTable table({"TARGET", "GROUP", "STREAM", "UP", "MIN", "P50", "P99", "MAX", "P50 VS TCP",
                   "SENT", "ANSWERED", "TIMEOUTS", "LOSS", "RETRANSMITS", "QP ERR", "WC ERRORS"});
  for (const ProbeStreamView& v : probe_stream_views(report)) {
    const ProbeTargetSample& p = *v.sample;
    const auto rtt = [&](double RttSummary::*field) {
      return p.window ? format_seconds((*p.window).*field) : kAbsentCell;
    };
    const std::optional<double> ratio = p50_vs_tcp(v);
    const std::string vs_tcp = ratio ? fmt::format("{:.2f}x", *ratio) : kAbsentCell;
    const std::optional<double> loss = shown_loss(v);
    const std::string retransmits =
        p.retransmits ? fmt::format("{} ({})", *p.retransmits, retransmit_scope(p)) : kAbsentCell;
    table.add_row({p.target, p.group.empty() ? kAbsentCell : p.group, stream_name(p),
                   p.connected ? "up" : "DOWN", rtt(&RttSummary::min), rtt(&RttSummary::p50),
                   rtt(&RttSummary::p99), rtt(&RttSummary::max), vs_tcp, count_text(p.sent),
                   count_text(p.answered), count_text(p.timed_out),
                   loss ? format_percent(*loss) : kAbsentCell, retransmits, count_text(p.qp_errors),
                   wc_errors_text(p)});
  }
  if (!table.empty()) out += table.render("  ");
  for (const ProbeTargetSample& p : snap.probes) {
    if (!p.last_error.empty()) {
      out += fmt::format("  last error {} {}: {}\n", p.target, stream_name(p), p.last_error);
    }
  }
  // Why retransmits are not the probe's own: once per reason, not per stream (a pingmesh has
  // hundreds of streams on the same port, all refused for the same reason).
  std::map<std::string, std::size_t> notes;
  for (const ProbeTargetSample& p : snap.probes) {
    if (p.retransmits && !p.retransmit_note.empty()) ++notes[p.retransmit_note];
  }
  for (const auto& [note, streams] : notes) {
    out += fmt::format("  retransmits port-level for {} stream{}: {}\n", streams,
                       streams == 1 ? "" : "s", note);
  }
  out +=
      "  RTTs are the window's (probes answered since the previous sample); LOSS is over the\n"
      "  interval when known, else since the prober started.\n";
  return out;
}

ojson probe_section_json(const PublishedTick& report) {
  const Snapshot& snap = report.snapshot;
  ojson streams = ojson::array();
  for (const ProbeStreamView& v : probe_stream_views(report)) {
    const ProbeTargetSample& p = *v.sample;
    ojson tcp = nullptr;
    if (v.tcp_baseline != nullptr) tcp = ojson{{"rtt", rtt_json(v.tcp_baseline->window)}};
    streams.push_back(
        ojson{{"target", p.target},
              {"group", p.group},
              {"transport", p.transport},
              {"traffic_class", optional_json(p.traffic_class)},
              {"local_device", p.local_device},
              {"connected", p.connected},
              {"rtt", rtt_json(p.window)},
              {"sent", p.sent},
              {"answered", p.answered},
              {"timeouts", p.timed_out},
              {"connect_failures", p.connect_failures},
              {"qp_errors", p.qp_errors},
              {"wc_errors", counters_json(p.wc_errors)},
              {"retransmits", optional_json(p.retransmits)},
              {"retransmit_scope", p.retransmits ? ojson(retransmit_scope(p)) : ojson(nullptr)},
              {"retransmit_note", p.retransmit_note},
              {"sent_per_second", rate_value(v.sent_rate)},
              {"interval_loss_ratio", optional_json(v.interval_loss)},
              {"last_error", p.last_error},
              {"tcp_baseline", std::move(tcp)}});
  }
  ojson prober = nullptr;
  if (snap.prober) {
    prober = ojson{{"cpu_seconds", snap.prober->cpu_seconds},
                   {"qps", snap.prober->qps},
                   {"registered_bytes", snap.prober->registered_bytes},
                   {"targets", snap.prober->targets}};
  }
  return ojson{{"prober", std::move(prober)}, {"streams", std::move(streams)}};
}

}  // namespace rdmatop
