#include "tui/screens.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "present/missing_metric.h"
#include "present/units.h"
#include "tui/probe_panel.h"

namespace rdmatop::tui {

namespace {

Line text_line(std::string text, Tone tone = Tone::normal) {
  Line line;
  line.spans.push_back(Span{std::move(text), tone});
  return line;
}

void append(Frame& frame, const std::vector<Line>& lines) {
  frame.insert(frame.end(), lines.begin(), lines.end());
}

std::string or_dash(const std::string& s) {
  return s.empty() ? "-" : s;
}

//? Header: who, when, how often, from where, and whether every source answered.
std::vector<Line> header_lines(const PublishedTick& report, const UiState& state,
                               const FrameContext& ctx) {
  const Snapshot& snap = report.snapshot;
  Line first;
  first.spans.push_back(Span{fmt::format("rdmatop {}", RDMATOP_VERSION), Tone::heading});
  first.spans.push_back(
      Span{fmt::format("  host {}  {:%Y-%m-%d %H:%M:%S} UTC  every {:g}s  ", or_dash(snap.hostname),
                       fmt::gmtime(std::chrono::system_clock::to_time_t(snap.wall)),
                       state.interval_seconds),
           Tone::normal});
  // Markers before the source: a long recording path must not push [PAUSED] off the screen.
  if (ctx.replay) first.spans.push_back(Span{"[REPLAY]  ", Tone::warn});
  if (state.paused) first.spans.push_back(Span{"[PAUSED]  ", Tone::warn});
  if (ctx.ended) first.spans.push_back(Span{"[ENDED]  ", Tone::warn});
  const std::string label = "source: ";
  std::size_t used = 0;
  for (const Span& s : first.spans) used += display_width(s.text);
  const std::size_t room = ctx.width > used + label.size() ? ctx.width - used - label.size() : 0;
  first.spans.push_back(
      Span{label + elide_left(ctx.source_label.empty() ? std::string("live") : ctx.source_label,
                              room, ctx.unicode ? "\u2026" : "..."),
           Tone::normal});

  std::map<SourceState, int> counts;
  const SourceStatus* first_error = nullptr;
  for (const auto& st : snap.sources) {
    ++counts[st.state];
    if (st.state == SourceState::error && first_error == nullptr) first_error = &st;
  }
  Line second;
  second.spans.push_back(Span{fmt::format("sources {} ok, {} no data, ", counts[SourceState::ok],
                                          counts[SourceState::no_data]),
                              Tone::normal});
  second.spans.push_back(Span{fmt::format("{} error", counts[SourceState::error]),
                              counts[SourceState::error] > 0 ? Tone::crit : Tone::ok});
  if (first_error != nullptr) {
    second.spans.push_back(Span{
        fmt::format(" ({}{}{}: {})", first_error->source, first_error->target.empty() ? "" : " ",
                    first_error->target, first_error->message),
        Tone::crit});
  }
  if (!report.rule_errors.empty()) {
    second.spans.push_back(
        Span{fmt::format("  rules: {} error(s)", report.rule_errors.size()), Tone::crit});
  }
  std::map<Severity, int> active;
  for (const auto& f : report.findings) {
    if (f.state != FindingState::resolved && !is_lifetime(f)) ++active[f.severity];
  }
  second.spans.push_back(Span{"  findings ", Tone::normal});
  second.spans.push_back(Span{fmt::format("{} critical", active[Severity::critical]),
                              active[Severity::critical] > 0 ? Tone::crit : Tone::normal});
  second.spans.push_back(Span{", ", Tone::normal});
  second.spans.push_back(Span{fmt::format("{} warning", active[Severity::warning]),
                              active[Severity::warning] > 0 ? Tone::warn : Tone::normal});
  return {std::move(first), std::move(second)};
}

/// The header line plus the rows around `cursor` that fit in `max_lines` (0: all).
std::vector<Line> window(const std::vector<Line>& table, std::optional<std::size_t> cursor,
                         std::size_t max_lines) {
  if (table.empty()) return table;
  const RowRange shown = visible_rows(table.size() - 1, cursor, max_lines);
  std::vector<Line> out{table.front()};
  for (std::size_t r = shown.first; r < shown.end; ++r) out.push_back(table[r + 1]);
  return out;
}

std::size_t table_width(const std::vector<Line>& lines) {
  std::size_t widest = 0;
  for (const Line& line : lines) widest = std::max(widest, display_width(line_text(line, 100000)));
  return widest;
}

/// The ports table, leaving out the least telling columns until it fits `width`: on an
/// 80-column terminal the state, pause, drop and finding columns matter most mid-incident.
std::vector<Line> fitted_table(std::vector<std::string> header, std::vector<Row> rows,
                               std::optional<std::size_t> cursor, std::size_t width) {
  static const std::vector<std::string> kDropOrder = {"RATE",   "NETDEV", "CNP/s",
                                                      "TX B/s", "ECN/s",  "RX B/s"};
  auto lines = table_lines(header, rows, cursor);
  for (const std::string& name : kDropOrder) {
    if (table_width(lines) <= width) break;
    const auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end()) continue;
    const auto col = it - header.begin();
    header.erase(it);
    for (Row& row : rows) row.cells.erase(row.cells.begin() + col);
    lines = table_lines(header, rows, cursor);
  }
  return lines;
}

std::string sort_label(const UiState& state) {
  return fmt::format("sort {} {}", port_columns()[state.sort_column],
                     state.sort_descending ? "desc" : "asc");
}

std::string panel_title(const std::string& name, bool focused) {
  return focused ? "[" + name + "]" : " " + name + " ";
}

/// `text` as lines of at most `width` code points, broken at spaces: the first line indented by
/// `first` spaces, the others by `rest` (a word longer than a line is cut by the screen).
std::vector<Line> wrapped(const std::string& text, std::size_t width, std::size_t first,
                          std::size_t rest, Tone tone) {
  std::vector<Line> out;
  std::string line(first, ' ');
  std::size_t words = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    start = end + 1;
    if (word.empty()) continue;
    if (words > 0 && display_width(line) + 1 + display_width(word) > width) {
      out.push_back(text_line(line, tone));
      line = std::string(rest, ' ');
      words = 0;
    }
    line += (words > 0 ? " " : "") + word;
    ++words;
  }
  if (words > 0) out.push_back(text_line(line, tone));
  return out;
}

std::vector<Line> finding_detail(const Finding& f, std::size_t width) {
  std::vector<Line> out;
  out.push_back(text_line(fmt::format("  {} {} on {} ({})", to_string(f.severity), f.rule,
                                      finding_place(f, "prio"), state_name(f)),
                          severity_tone(f.severity)));
  for (const char* name : {"summary", "description"}) {
    const std::string text = annotation(f, name);
    if (!text.empty()) append(out, wrapped(text, width, 4, 4, Tone::normal));
  }
  for (const auto& e : f.evidence) {
    std::string labels;
    for (const auto& [k, v] : e.labels) {
      if (k == "__name__") continue;
      labels += (labels.empty() ? "{" : ",") + k + "=" + v;
    }
    if (!labels.empty()) labels += "}";
    out.push_back(
        text_line(fmt::format("    evidence: {}{} = {}", label_value(e.labels, "__name__"), labels,
                              format_si(e.value)),
                  Tone::dim));
  }
  const std::string remediation = annotation(f, "remediation");
  if (!remediation.empty()) {
    append(out, wrapped("remediation: " + remediation, width, 4, 6, Tone::ok));
  }
  return out;
}

//? Main view: ports table over findings; the focused panel carries the cursor.
std::vector<Line> main_body(const PublishedTick& report, UiState& state, const FrameContext& ctx,
                            std::size_t body_height) {
  const PortsTable ports = build_ports_table(report, state);
  const auto findings = visible_findings(report, state);
  if (!ports.rows.empty()) state.port_cursor = std::min(state.port_cursor, ports.rows.size() - 1);
  if (!findings.empty()) {
    state.finding_cursor = std::min(state.finding_cursor, findings.size() - 1);
  }
  const bool interactive = ctx.height != 0;
  const bool ports_focus = state.panel == Panel::ports;

  std::vector<Line> port_part;
  port_part.push_back(
      text_line(fmt::format("{} {} of {}  {}{}", panel_title("PORTS", interactive && ports_focus),
                            ports.rows.size(), report.ports.size(), sort_label(state),
                            state.filter.empty() ? "" : "  filter \"" + state.filter + "\""),
                Tone::heading));
  std::optional<std::size_t> port_cursor;
  if (interactive && ports_focus && !ports.rows.empty()) port_cursor = state.port_cursor;
  const auto port_table = fitted_table(port_columns(), ports.rows, port_cursor, ctx.width);
  if (ports.rows.empty()) {
    port_part.push_back(
        text_line(report.ports.empty() ? "  no RDMA ports found" : "  no port matches the filter",
                  Tone::dim));
  }

  // Every row sets the column widths; only the rows shown (below) get their summary.
  std::vector<Row> finding_rows;
  finding_rows.reserve(findings.size());
  for (const Finding* f : findings) finding_rows.push_back(finding_row_head(*f));
  std::optional<std::size_t> finding_cursor;
  if (interactive && !ports_focus && !findings.empty()) finding_cursor = state.finding_cursor;
  std::vector<Line> finding_part;
  finding_part.push_back(text_line(
      fmt::format("{} {}", panel_title("FINDINGS", interactive && !ports_focus), findings.size()),
      Tone::heading));
  std::vector<Line> detail;
  if (finding_cursor) {
    detail = finding_detail(*findings[*finding_cursor], ctx.width);
  } else if (!interactive) {
    for (const Finding* f : findings) append(detail, finding_detail(*f, ctx.width));
  }

  // Probe streams (when a prober runs) sit between ports and findings, capped to a quarter of
  // the body in a terminal so the ports and findings stay in view.
  std::vector<Line> probe_part;
  if (!report.snapshot.probes.empty()) {
    probe_part.push_back(text_line(probe_panel_title(report), Tone::heading));
    const std::size_t cap = interactive ? std::max<std::size_t>(body_height / 4, 3) - 1 : 0;
    append(probe_part,
           window(table_lines(probe_columns(), probe_rows(report), std::nullopt), {}, cap));
  }
  const std::size_t probe_need = probe_part.empty() ? 0 : probe_part.size() + 1;

  std::vector<Line> out = port_part;
  if (!ports.rows.empty()) {
    std::size_t budget = 0;
    if (interactive) {
      // Ports keep at least half of the body; the findings get what the ports leave.
      const std::size_t finding_need =
          (findings.empty() ? 2 : 3 + finding_rows.size()) + probe_need;
      const std::size_t rest = body_height > finding_need + 2 ? body_height - finding_need - 2 : 0;
      budget = std::max<std::size_t>(std::max(rest, body_height / 2), 2);
    }
    append(out, window(port_table, port_cursor, budget));
  }
  if (!probe_part.empty()) {
    out.push_back(Line{});
    append(out, probe_part);
  }
  out.push_back(Line{});
  append(out, finding_part);
  if (findings.empty()) {
    out.push_back(text_line(
        report.findings.empty() ? "  none: no rule matched" : "  no finding matches the filter",
        Tone::ok));
    return out;
  }
  std::size_t left = 0;
  if (interactive) {
    left = body_height > out.size() + detail.size() ? body_height - out.size() - detail.size() : 2;
  }
  const RowRange shown = visible_rows(finding_rows.size(), finding_cursor, left);
  for (std::size_t r = shown.first; r < shown.end; ++r) finding_rows[r] = finding_row(*findings[r]);
  append(out, table_lines({"SEV", "RULE", "WHERE", "STATE", "SUMMARY"}, finding_rows,
                          finding_cursor, shown));
  if (!detail.empty()) {
    out.push_back(Line{});
    append(out, detail);
  }
  return out;
}

const TickPort* find_port(const PublishedTick& report, const std::string& device,
                          std::uint32_t port) {
  for (const TickPort& pr : report.ports) {
    const DeviceSample& dev = report.snapshot.devices[pr.device_index];
    if (dev.name == device && dev.ports[pr.port_index].port == port) return &pr;
  }
  return nullptr;
}

//? Sparklines of the key figures over the history window, newest on the right.
std::vector<Line> history_lines(const History& history, const std::string& device,
                                std::uint32_t port, bool unicode) {
  // Per tick of the window; null: the port was not in that tick.
  const auto figures = history.port_figures(device, port);
  std::vector<Row> rows;
  const auto& defs = port_figure_defs();
  for (std::size_t k = 0; k < defs.size(); ++k) {
    std::vector<std::optional<double>> values;
    for (const auto* f : figures) {
      const std::optional<Rate>* rate = f ? &(*f)[k] : nullptr;
      if (rate && *rate && rate_has_value(**rate)) {
        values.push_back((*rate)->per_second);
      } else {
        values.push_back(std::nullopt);
      }
    }
    const std::optional<Rate> now =
        figures.empty() || figures.back() == nullptr ? std::nullopt : (*figures.back())[k];
    Row row;
    row.cells.push_back(Cell{std::string(defs[k].title), Tone::normal, std::nullopt});
    row.cells.push_back(rate_cell(now, std::string(defs[k].unit)));
    row.cells.push_back(Cell{sparkline(values, unicode), Tone::ok, std::nullopt});
    rows.push_back(std::move(row));
  }
  return table_lines({"FIGURE", "NOW", fmt::format("LAST {} TICKS", figures.size())}, rows,
                     std::nullopt);
}

std::string series_suffix(const Series& s) {
  if (s.name.contains("_seconds_total")) return "%";
  if (s.name.contains("_bytes")) return " B/s";
  return "/s";
}

std::string labels_text(const Labels& labels) {
  static const std::set<std::string> kPortLabels = {"device", "port", "netdev"};
  std::string out;
  for (const auto& [k, v] : labels) {
    if (kPortLabels.count(k) != 0) continue;
    out += (out.empty() ? "{" : ",") + k + "=" + v;
  }
  return out.empty() ? out : out + "}";
}

//? Raw counters under their source names, with a rate against the previous tick.
std::vector<Row> raw_rows(const PublishedTick& report, const PublishedTick* previous,
                          const TickPort& pr) {
  const DeviceSample& dev = report.snapshot.devices[pr.device_index];
  const PortSample& port = dev.ports[pr.port_index];
  const NetdevSample* nd = pr.netdev_index ? &report.snapshot.netdevs[*pr.netdev_index] : nullptr;
  const PortSample* prev_port = nullptr;
  const NetdevSample* prev_nd = nullptr;
  if (previous != nullptr) {
    if (const TickPort* pp = find_port(*previous, dev.name, port.port)) {
      prev_port = &previous->snapshot.devices[pp->device_index].ports[pp->port_index];
      if (pp->netdev_index) prev_nd = &previous->snapshot.netdevs[*pp->netdev_index];
    }
  }
  std::vector<Row> rows;
  const auto add = [&](const std::string& source, const CounterMap& now, const CounterMap* before) {
    for (const auto& [name, value] : now) {
      std::optional<CounterPoint> prev_point;
      if (before != nullptr) {
        if (auto it = before->find(name); it != before->end()) {
          prev_point = CounterPoint{static_cast<double>(it->second), previous->snapshot.taken};
        }
      }
      // Raw counters carry no known width here, so a decrease shows as "reset" (rates.h).
      const Rate rate =
          compute_rate(prev_point, CounterPoint{static_cast<double>(value), report.snapshot.taken},
                       0, std::chrono::hours(1));
      Row row;
      row.cells.push_back(Cell{source + "/" + name, Tone::normal, std::nullopt});
      row.cells.push_back(Cell{std::to_string(value), Tone::normal, std::nullopt});
      row.cells.push_back(rate_cell(rate, "/s"));
      rows.push_back(std::move(row));
    }
  };
  add("counters", port.counters, prev_port ? &prev_port->counters : nullptr);
  add("hw_counters", port.hw_counters, prev_port ? &prev_port->hw_counters : nullptr);
  if (nd != nullptr) {
    add("ethtool", nd->ethtool, prev_nd ? &prev_nd->ethtool : nullptr);
    add("statistics", nd->statistics, prev_nd ? &prev_nd->statistics : nullptr);
  }
  return rows;
}

//? Port detail: identity, history, findings, PFC per priority, GIDs, every series, raw counters.
std::vector<Line> detail_body(const History& history, const PublishedTick& report,
                              const UiState& state, const FrameContext& ctx) {
  const PortsTable ports = build_ports_table(report, state);
  if (ports.rows.empty()) return {text_line("  no port selected", Tone::dim)};
  const TickPort& pr =
      report.ports[ports.port_indices[std::min(state.port_cursor, ports.rows.size() - 1)]];
  const DeviceSample& dev = report.snapshot.devices[pr.device_index];
  const PortSample& port = dev.ports[pr.port_index];
  const NetdevSample* nd = pr.netdev_index ? &report.snapshot.netdevs[*pr.netdev_index] : nullptr;
  std::vector<Line> out;
  Line title;
  title.spans.push_back(Span{"PORT " + port_label(report, pr), Tone::heading});
  title.spans.push_back(Span{fmt::format("  netdev {}  ", or_dash(port.netdev)), Tone::normal});
  title.spans.push_back(Span{fmt::format("{} / {}", or_dash(port.state), or_dash(port.phys_state)),
                             port.state == "ACTIVE" ? Tone::ok : Tone::crit});
  title.spans.push_back(Span{
      fmt::format("  {}  {}", or_dash(port.rate_text), or_dash(port.link_layer)), Tone::normal});
  out.push_back(std::move(title));
  out.push_back(text_line(fmt::format(
      "  driver {}  firmware {}  board {}  hca {}  pci {}  mtu {}  oper {}", or_dash(dev.driver),
      or_dash(dev.fw_ver), or_dash(dev.board_id), or_dash(dev.hca_type), or_dash(dev.pci_address),
      nd && nd->mtu ? std::to_string(*nd->mtu) : "-", nd ? or_dash(nd->operstate) : "-")));
  out.push_back(Line{});
  out.push_back(text_line("HISTORY", Tone::heading));
  append(out, history_lines(history, dev.name, port.port, ctx.unicode));

  out.push_back(Line{});
  out.push_back(text_line("FINDINGS ON THIS PORT", Tone::heading));
  bool any = false;
  for (const Finding& f : report.findings) {
    if (label_value(f.labels, "device") != dev.name) continue;
    const std::string& p = label_value(f.labels, "port");
    if (!p.empty() && p != std::to_string(port.port)) continue;
    append(out, finding_detail(f, ctx.width));
    any = true;
  }
  if (!any) out.push_back(text_line("  none", Tone::ok));

  out.push_back(Line{});
  out.push_back(text_line("PFC PER PRIORITY", Tone::heading));
  const auto pfc = pfc_rows(pr);
  if (pfc.empty()) {
    out.push_back(text_line("  no per-priority counters", Tone::dim));
  } else {
    append(out, table_lines(pfc_columns(), pfc, std::nullopt));
  }

  out.push_back(Line{});
  out.push_back(text_line("GID TABLE", Tone::heading));
  std::vector<Row> gids;
  for (const GidEntry& g : port.gids) {
    const bool chosen = pr.roce_v2_gid && pr.roce_v2_gid->index == g.index;
    gids.push_back(Row{{Cell{std::to_string(g.index), Tone::normal, std::nullopt},
                        Cell{g.gid, chosen ? Tone::ok : Tone::normal, std::nullopt},
                        Cell{or_dash(g.type), Tone::normal, std::nullopt},
                        Cell{or_dash(g.netdev), Tone::normal, std::nullopt},
                        Cell{chosen ? "first routable RoCE v2" : "", Tone::ok, std::nullopt}}});
  }
  if (!port.gid_table_read) {
    out.push_back(text_line("  GID table not read (unknown, not empty)", Tone::dim));
  } else if (gids.empty()) {
    out.push_back(text_line("  no populated GID", Tone::crit));
  } else {
    append(out, table_lines({"IDX", "GID", "TYPE", "NETDEV", ""}, gids, std::nullopt));
  }

  out.push_back(Line{});
  out.push_back(text_line("CANONICAL SERIES", Tone::heading));
  std::vector<Row> series;
  for (const auto& s : pr.series) {
    const bool bytes = s.series.name.contains("_bytes");
    Row row;
    row.cells.push_back(Cell{s.series.name + labels_text(s.series.labels), Tone::normal, {}});
    row.cells.push_back(
        Cell{bytes ? format_bytes(s.series.value) : format_si(s.series.value), Tone::normal, {}});
    row.cells.push_back(s.series.kind == SeriesKind::counter
                            ? rate_cell(s.rate, series_suffix(s.series))
                            : Cell{"gauge", Tone::dim, std::nullopt});
    series.push_back(std::move(row));
  }
  append(out, table_lines({"SERIES", "VALUE", "RATE"}, series, std::nullopt));

  out.push_back(Line{});
  out.push_back(text_line("RULES THAT CANNOT RUN ON THIS HOST", Tone::heading));
  std::size_t blind = 0;
  for (const RuleCoverage& c : report.coverage) {
    if (c.evaluable) continue;
    ++blind;
    std::string why;
    for (const std::string& metric : c.missing_metrics) {
      why += fmt::format("{}{}: {}", why.empty() ? "" : "; ", metric,
                         explain_missing_metric(metric, report.snapshot));
    }
    append(out, wrapped(c.rule + "  " + why, ctx.width, 2, 6, Tone::dim));
  }
  if (blind == 0) out.push_back(text_line("  none: every rule has its inputs", Tone::ok));

  out.push_back(Line{});
  out.push_back(text_line("RAW COUNTERS", Tone::heading));
  const auto previous = history.previous();
  append(out, table_lines({"SOURCE/NAME", "VALUE", "RATE"}, raw_rows(report, previous.get(), pr),
                          std::nullopt));
  return out;
}

std::vector<Line> help_body() {
  std::vector<Line> out;
  out.push_back(text_line("HELP: keys", Tone::heading));
  std::vector<Row> rows;
  for (const auto& [keys, meaning] : key_help()) {
    rows.push_back(
        Row{{Cell{keys, Tone::heading, std::nullopt}, Cell{meaning, Tone::normal, std::nullopt}}});
  }
  append(out, table_lines({"KEY", "ACTION"}, rows, std::nullopt));
  out.push_back(Line{});
  out.push_back(text_line("HELP: colours", Tone::heading));
  out.push_back(
      text_line("  red: critical (port not ACTIVE, pause >= 50%, critical finding)", Tone::crit));
  out.push_back(text_line("  yellow: warning (pause >= 10%, drops or retransmits, counter reset)",
                          Tone::warn));
  out.push_back(
      text_line("  green: healthy    dim: no rate yet (init), stale, or absent (-)", Tone::ok));
  out.push_back(text_line("  Rates show init (first tick), reset (counter went down) or stale"));
  out.push_back(text_line("  instead of a number. Set NO_COLOR for a monochrome screen."));
  return out;
}

Line key_bar(const UiState& state) {
  if (state.editing_filter) {
    return text_line("Filter: " + state.filter + "_   (Enter keeps it, Esc clears it)",
                     Tone::heading);
  }
  switch (state.view) {
    case View::detail:
      return text_line("q:quit Esc:back Up/Down:scroll ?:help Space:pause +-:interval",
                       Tone::heading);
    case View::help:
      return text_line("q:quit Esc/?:close help Up/Down:scroll", Tone::heading);
    case View::main:
      break;
  }
  // Fits 80 columns: the minimum terminal must still show every way out and in.
  return text_line("q:quit ?:help Tab:panel Enter:detail /:filter <>r:sort Space:pause +-:interval",
                   Tone::heading);
}

}  // namespace

const std::vector<std::string>& pfc_columns() {
  static const std::vector<std::string> kColumns = [] {
    std::vector<std::string> c = {"PRIO", "PFC"};
    for (const FigureDef& def : priority_figure_defs()) c.emplace_back(def.title);
    return c;
  }();
  return kColumns;
}

std::vector<Row> pfc_rows(const TickPort& port) {
  std::vector<Row> rows;
  const auto& defs = priority_figure_defs();
  for (const PriorityView& pv : port.view.priorities) {
    Row row;
    row.cells.push_back(Cell{pv.priority, Tone::normal, std::nullopt});
    row.cells.push_back(!pv.pfc_enabled
                            ? Cell{"-", Tone::dim, std::nullopt}
                            : Cell{*pv.pfc_enabled ? "on" : "off", Tone::normal, std::nullopt});
    for (std::size_t k = 0; k < defs.size(); ++k) {
      Cell cell = rate_cell(pv.figures[k], std::string(defs[k].unit));
      if (defs[k].unit == "%" && cell.sort_value) cell.tone = pause_tone(*cell.sort_value);
      row.cells.push_back(std::move(cell));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

Counts counts_for(const PublishedTick& report, const UiState& state, const FrameContext& ctx) {
  Counts c;
  c.ports = build_ports_table(report, state).rows.size();
  c.findings = visible_findings(report, state).size();
  c.page = ctx.height > 8 ? ctx.height - 8 : 1;
  return c;
}

Frame render_frame(const History& history, UiState& state, const FrameContext& ctx) {
  const PublishedTick& report = *history.latest();
  Frame frame;
  append(frame, header_lines(report, state, ctx));
  frame.push_back(Line{});
  const bool interactive = ctx.height != 0;
  // Header (2), blank (1) and the key bar (1) are fixed; the body gets the rest.
  const std::size_t body_height = interactive ? (ctx.height > 4 ? ctx.height - 4 : 1) : 0;
  std::vector<Line> body;
  switch (state.view) {
    case View::main:
      body = main_body(report, state, ctx, body_height);
      break;
    case View::detail:
      body = detail_body(history, report, state, ctx);
      break;
    case View::help:
      body = help_body();
      break;
  }
  if (interactive && state.view != View::main) {
    const std::size_t max_scroll = body.size() > body_height ? body.size() - body_height : 0;
    state.detail_scroll = std::min(state.detail_scroll, max_scroll);
    body.erase(body.begin(), body.begin() + static_cast<long>(state.detail_scroll));
  }
  if (interactive && body.size() > body_height) body.resize(body_height);
  append(frame, body);
  if (interactive) {
    while (frame.size() + 1 < ctx.height) frame.push_back(Line{});
    frame.push_back(key_bar(state));
  }
  return frame;
}

}  // namespace rdmatop::tui
