#include "tui/view_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>

#include "present/units.h"

namespace rdmatop::tui {

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

Cell text_cell(std::string text, Tone tone = Tone::normal) {
  if (text.empty()) return Cell{kAbsentCell, Tone::dim, std::nullopt};
  return Cell{std::move(text), tone, std::nullopt};
}

Cell pause_cell(const std::optional<Rate>& rate) {
  Cell cell = rate_cell(rate, "%");
  if (rate && rate_has_value(*rate)) cell.tone = pause_tone(rate->per_second);
  return cell;
}

/// Any non-zero drop or retransmission rate deserves a look; zero is quiet.
Cell trouble_cell(const std::optional<Rate>& rate) {
  Cell cell = rate_cell(rate, "/s");
  if (rate && rate_has_value(*rate) && rate->per_second > 0) cell.tone = Tone::warn;
  return cell;
}

int severity_rank(Severity s) {
  return static_cast<int>(s);
}

}  // namespace

namespace {

History::TickFigures figures_of(const PublishedTick& report) {
  History::TickFigures out;
  out.reserve(report.ports.size());
  for (const TickPort& pr : report.ports) {
    const DeviceSample& dev = report.snapshot.devices[pr.device_index];
    out.push_back(History::PortFigures{dev.name, dev.ports[pr.port_index].port, pr.view.figures});
  }
  return out;
}

}  // namespace

void History::push(std::shared_ptr<const PublishedTick> report) {
  if (!report) return;
  figures_.push_back(figures_of(*report));
  while (figures_.size() > capacity_) figures_.pop_front();
  previous_ = std::move(latest_);
  latest_ = std::move(report);
}

void History::replace_latest(std::shared_ptr<const PublishedTick> report) {
  if (!report) return;
  if (!latest_) {
    push(std::move(report));
    return;
  }
  figures_.back() = figures_of(*report);
  latest_ = std::move(report);
}

std::vector<const std::vector<std::optional<Rate>>*> History::port_figures(
    const std::string& device, std::uint32_t port) const {
  std::vector<const std::vector<std::optional<Rate>>*> out;
  out.reserve(figures_.size());
  for (const TickFigures& tick : figures_) {
    const auto it = std::find_if(tick.begin(), tick.end(), [&](const PortFigures& p) {
      return p.port == port && p.device == device;
    });
    out.push_back(it == tick.end() ? nullptr : &it->figures);
  }
  return out;
}

const std::vector<std::string>& port_columns() {
  static const std::vector<std::string> kColumns = [] {
    std::vector<std::string> c = {"PORT", "NETDEV", "STATE", "RATE"};
    for (const FigureDef& def : port_figure_defs()) c.emplace_back(def.title);
    c.emplace_back("WORST FINDING");
    return c;
  }();
  return kColumns;
}

Cell rate_cell(const std::optional<Rate>& rate, const std::string& suffix) {
  if (!rate) return Cell{kAbsentCell, Tone::dim, std::nullopt};
  Cell cell{format_rate(*rate, suffix), Tone::normal, std::nullopt};
  if (rate_has_value(*rate)) {
    cell.sort_value = rate->per_second;
  } else {
    cell.tone = rate->state == RateState::reset ? Tone::warn : Tone::dim;
  }
  return cell;
}

Tone pause_tone(double fraction) {
  if (fraction >= kPauseCrit) return Tone::crit;
  if (fraction >= kPauseWarn) return Tone::warn;
  return Tone::normal;
}

Tone severity_tone(Severity severity) {
  switch (severity) {
    case Severity::critical:
      return Tone::crit;
    case Severity::warning:
      return Tone::warn;
    case Severity::info:
      return Tone::normal;
    case Severity::none:
      break;
  }
  return Tone::dim;
}

Row finding_row_head(const Finding& finding) {
  const bool resolved = finding.state == FindingState::resolved;
  const Tone tone = resolved ? Tone::dim : severity_tone(finding.severity);
  Row row;
  row.cells.reserve(5);
  row.cells.push_back(Cell{to_string(finding.severity), tone,
                           static_cast<double>(severity_rank(finding.severity))});
  row.cells.push_back(text_cell(finding.rule, resolved ? Tone::dim : Tone::normal));
  row.cells.push_back(text_cell(finding_place(finding, "prio")));
  row.cells.push_back(text_cell(state_name(finding), resolved ? Tone::dim : tone));
  return row;
}

Row finding_row(const Finding& finding) {
  Row row = finding_row_head(finding);
  row.cells.push_back(text_cell(annotation(finding, "summary")));
  return row;
}

std::vector<const Finding*> visible_findings(const PublishedTick& report, const UiState& state) {
  std::vector<const Finding*> out;
  for (const bool want_resolved : {false, true}) {
    for (const Finding& f : report.findings) {
      if ((f.state == FindingState::resolved) != want_resolved) continue;
      // Without a filter every finding matches: no row is built to find that out.
      if (state.filter.empty() || matches_filter(finding_row(f), state.filter)) out.push_back(&f);
    }
  }
  return out;
}

std::string port_label(const PublishedTick& report, const TickPort& port) {
  const DeviceSample& dev = report.snapshot.devices[port.device_index];
  return fmt::format("{}/{}", dev.name, dev.ports[port.port_index].port);
}

WorstFindings::WorstFindings(const std::vector<Finding>& findings) {
  for (std::size_t i = 0; i < findings.size(); ++i) {
    const Finding& f = findings[i];
    // History (lifetime evidence) is in the findings list, not in the port's live marker.
    if (f.state == FindingState::resolved || is_lifetime(f)) continue;
    // A device-scope finding (no port label) is filed under "" and concerns every port.
    Worst& worst = by_place_[{label_value(f.labels, "device"), label_value(f.labels, "port")}];
    if (worst.finding == nullptr ||
        severity_rank(f.severity) > severity_rank(worst.finding->severity)) {
      worst = Worst{&f, i};
    }
  }
}

const WorstFindings::Worst* WorstFindings::find(const std::string& device,
                                                const std::string& port) const {
  const auto it = by_place_.find({device, port});
  return it == by_place_.end() ? nullptr : &it->second;
}

const Finding* WorstFindings::of(const std::string& device, const std::string& port) const {
  const Worst* own = find(device, port);
  const Worst* device_wide = find(device, "");
  if (own == nullptr || device_wide == nullptr) {
    const Worst* only = own != nullptr ? own : device_wide;
    return only == nullptr ? nullptr : only->finding;
  }
  const int a = severity_rank(own->finding->severity);
  const int b = severity_rank(device_wide->finding->severity);
  if (a != b) return a > b ? own->finding : device_wide->finding;
  return own->position < device_wide->position ? own->finding : device_wide->finding;
}

PortsTable build_ports_table(const PublishedTick& report, const UiState& state) {
  struct Entry {
    Row row;
    std::size_t index;
  };
  std::vector<Entry> entries;
  const WorstFindings worst_findings(report.findings);
  for (std::size_t i = 0; i < report.ports.size(); ++i) {
    const TickPort& pr = report.ports[i];
    const PortSample& port = report.snapshot.devices[pr.device_index].ports[pr.port_index];
    Row row;
    row.cells.push_back(Cell{port_label(report, pr), Tone::normal, std::nullopt});
    row.cells.push_back(text_cell(port.netdev));
    row.cells.push_back(text_cell(port.state, port.state == "ACTIVE" ? Tone::ok : Tone::crit));
    Cell rate = text_cell(port.rate_gbps ? fmt::format("{:g}G", *port.rate_gbps) : "");
    rate.sort_value = port.rate_gbps;
    row.cells.push_back(rate);
    // The figures of the port view, in its table's order, each as its unit says; pauses are
    // coloured by how much of the time they take, retransmissions and drops by being there.
    for (std::size_t k = 0; k < port_figure_defs().size(); ++k) {
      const FigureDef& def = port_figure_defs()[k];
      const std::optional<Rate>& figure = pr.view.figures[k];
      const auto which = static_cast<PortFigure>(k);
      if (def.unit == "%") {
        row.cells.push_back(pause_cell(figure));
      } else if (which == PortFigure::retransmits || which == PortFigure::drops) {
        row.cells.push_back(trouble_cell(figure));
      } else {
        row.cells.push_back(rate_cell(figure, std::string(def.unit)));
      }
    }
    const std::string& device = report.snapshot.devices[pr.device_index].name;
    if (const Finding* w = worst_findings.of(device, std::to_string(port.port))) {
      row.cells.push_back(Cell{fmt::format("{} {}", to_string(w->severity), w->rule),
                               severity_tone(w->severity),
                               static_cast<double>(severity_rank(w->severity))});
    } else {
      row.cells.push_back(Cell{"ok", Tone::ok, 0.0});
    }
    if (matches_filter(row, state.filter)) entries.push_back(Entry{std::move(row), i});
  }
  const std::size_t col = std::min(state.sort_column, port_columns().size() - 1);
  // Numbers before words (init/stale/-), so the busiest port is on top when descending; the
  // original device/port order breaks ties (stable sort).
  std::stable_sort(entries.begin(), entries.end(), [&](const Entry& a, const Entry& b) {
    const Cell& x = a.row.cells[col];
    const Cell& y = b.row.cells[col];
    if (x.sort_value.has_value() != y.sort_value.has_value()) return x.sort_value.has_value();
    if (x.sort_value) {
      return state.sort_descending ? *x.sort_value > *y.sort_value : *x.sort_value < *y.sort_value;
    }
    return state.sort_descending ? x.text > y.text : x.text < y.text;
  });
  PortsTable table;
  for (auto& e : entries) {
    table.rows.push_back(std::move(e.row));
    table.port_indices.push_back(e.index);
  }
  return table;
}

bool matches_filter(const Row& row, const std::string& filter) {
  if (filter.empty()) return true;
  const std::string needle = lower(filter);
  return std::any_of(row.cells.begin(), row.cells.end(), [&](const Cell& c) {
    return lower(c.text).find(needle) != std::string::npos;
  });
}

std::string sparkline(const std::vector<std::optional<double>>& values, bool unicode) {
  static constexpr std::array<const char*, 8> kBlocks = {"\u2581", "\u2582", "\u2583", "\u2584",
                                                         "\u2585", "\u2586", "\u2587", "\u2588"};
  static constexpr std::array<char, 8> kAscii = {'_', '.', ':', '-', '=', '+', '*', '#'};
  double top = 0;
  for (const auto& v : values) {
    if (v && std::isfinite(*v)) top = std::max(top, *v);
  }
  std::string out;
  for (const auto& v : values) {
    if (!v || !std::isfinite(*v)) {
      out += ' ';
      continue;
    }
    // Level 0 is reserved for zero, so any activity at all is visibly above the floor.
    std::size_t level = 0;
    if (top > 0 && *v > 0) {
      level = 1 + static_cast<std::size_t>(std::clamp(std::floor(*v / top * 7.0), 0.0, 6.0));
    }
    if (unicode) {
      out += kBlocks[level];
    } else {
      out += kAscii[level];
    }
  }
  return out;
}

}  // namespace rdmatop::tui
