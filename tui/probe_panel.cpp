#include "tui/probe_panel.h"

#include <fmt/format.h>

#include "pipeline/probe_streams.h"
#include "present/units.h"

namespace rdmatop::tui {

namespace {

Cell seconds_cell(const std::optional<RttSummary>& window, double RttSummary::*field, bool rdma) {
  if (!window) return Cell{"-", Tone::dim, std::nullopt};
  const double value = (*window).*field;
  const Tone tone =
      rdma && field == &RttSummary::p99 && value > kProbeP99Slo ? Tone::warn : Tone::normal;
  return Cell{format_seconds(value), tone, value};
}

Cell loss_cell(const std::optional<double>& loss) {
  if (!loss) return Cell{"-", Tone::dim, std::nullopt};
  const Tone tone = *loss >= kProbeLossCrit   ? Tone::crit
                    : *loss >= kProbeLossWarn ? Tone::warn
                                              : Tone::ok;
  return Cell{format_percent(*loss), tone, *loss};
}

Cell errors_cell(const ProbeTargetSample& p) {
  std::uint64_t wc = 0;
  for (const auto& entry : p.wc_errors) wc += entry.second;
  const std::uint64_t total = wc + p.qp_errors + p.connect_failures;
  if (total == 0) return Cell{"0", Tone::ok, 0.0};
  // Only the kinds that happened, so the column stays narrow: "6 wc 2 qp".
  std::string text;
  for (const auto& [n, kind] :
       {std::pair{wc, "wc"}, std::pair{p.qp_errors, "qp"}, std::pair{p.connect_failures, "conn"}}) {
    if (n > 0) text += fmt::format("{}{} {}", text.empty() ? "" : " ", n, kind);
  }
  return Cell{text, Tone::warn, static_cast<double>(total)};
}

}  // namespace

const std::vector<std::string>& probe_columns() {
  static const std::vector<std::string> columns = {
      "TARGET", "STREAM", "UP", "P50", "P99", "VS TCP", "LOSS", "TIMEOUT/s", "RETX/s", "ERRORS"};
  return columns;
}

std::vector<Row> probe_rows(const PublishedTick& report) {
  std::vector<Row> rows;
  for (const ProbeStreamView& v : probe_stream_views(report)) {
    const ProbeTargetSample& p = *v.sample;
    const bool rdma = p.transport != "tcp";
    Row row;
    row.cells.push_back(
        Cell{p.group.empty() ? p.target : p.target + " (" + p.group + ")", Tone::normal, {}});
    row.cells.push_back(Cell{stream_name(p), Tone::normal, {}});
    row.cells.push_back(p.connected ? Cell{"up", Tone::ok, 1.0} : Cell{"DOWN", Tone::crit, 0.0});
    row.cells.push_back(seconds_cell(p.window, &RttSummary::p50, rdma));
    row.cells.push_back(seconds_cell(p.window, &RttSummary::p99, rdma));
    if (const auto ratio = p50_vs_tcp(v)) {
      row.cells.push_back(Cell{fmt::format("{:.2f}x", *ratio), Tone::normal, *ratio});
    } else {
      row.cells.push_back(Cell{"-", Tone::dim, std::nullopt});
    }
    row.cells.push_back(loss_cell(shown_loss(v)));
    row.cells.push_back(rate_cell(v.timeout_rate, "/s"));
    row.cells.push_back(p.retransmits ? rate_cell(v.retransmit_rate, "/s")
                                      : Cell{"-", Tone::dim, std::nullopt});
    row.cells.push_back(errors_cell(p));
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string probe_panel_title(const PublishedTick& report) {
  const Snapshot& snap = report.snapshot;
  std::string title = fmt::format(" PROBES  {} streams", snap.probes.size());
  if (snap.prober) {
    title += fmt::format("  prober: {} targets, {} QPs, {} registered, {:.2f} s CPU",
                         snap.prober->targets, snap.prober->qps,
                         format_bytes(static_cast<double>(snap.prober->registered_bytes)),
                         snap.prober->cpu_seconds);
  }
  return title;
}

}  // namespace rdmatop::tui
