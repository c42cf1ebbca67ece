// The TUI's view model: PURE functions from a PublishedTick (plus a short history of earlier
// PublishedTicks) and the UI state to rows of cells with colour classes. No terminal here (btop's
// collect -> draw split, github.com/aristocratos/btop), so every decision the screen shows is
// unit-tested.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pipeline/tick.h"

namespace rdmatop::tui {

/// Colour class of a cell; the screen maps it to a colour or, without colour, an attribute.
enum class Tone : std::uint8_t { normal, ok, warn, crit, dim, heading };

struct Cell {
  std::string text;
  Tone tone = Tone::normal;
  std::optional<double> sort_value;  ///< numeric key; cells without one sort by text, last
};

struct Row {
  std::vector<Cell> cells;
};

/// Pause occupancy (share of time paused) thresholds: the built-in pack's PFC rules
/// (rules/builtin/pfc.yaml) call 0.5 a storm/pushback; 0.1 is where it starts to hurt.
inline constexpr double kPauseWarn = 0.1;
inline constexpr double kPauseCrit = 0.5;

enum class Panel : std::uint8_t { ports, findings };
enum class View : std::uint8_t { main, detail, help };

struct UiState {
  Panel panel = Panel::ports;
  View view = View::main;
  std::size_t port_cursor = 0;     ///< row in the sorted, filtered ports table
  std::size_t finding_cursor = 0;  ///< row in the filtered findings list
  std::size_t detail_scroll = 0;   ///< first line shown in the detail / help view
  std::size_t sort_column = 0;     ///< index into kPortColumns
  bool sort_descending = false;
  std::string filter;  ///< case-insensitive substring over a row's cells; empty = all
  bool editing_filter = false;
  bool paused = false;
  double interval_seconds = 1.0;
};

/// What the TUI keeps between ticks: the latest PublishedTick and the one before it (raw
/// counter rates in the detail view), and a ring of the port figures of the last `capacity`
/// ticks (the sparklines). Only figures are kept of older ticks, not whole ticks: 60 ticks of a
/// 64-port host are 60 x 64 small figure vectors instead of 60 Snapshots with their series.
class History {
 public:
  /// The figures of one port in one tick (PortView::figures), by port.
  struct PortFigures {
    std::string device;
    std::uint32_t port = 0;
    std::vector<std::optional<Rate>> figures;  ///< per port_figure_defs()
  };
  using TickFigures = std::vector<PortFigures>;

  explicit History(std::size_t capacity = 60) : capacity_(capacity) {}
  void push(std::shared_ptr<const PublishedTick> report);
  /// Puts a republished latest PublishedTick (the fast path's findings merged into the same tick)
  /// in place of the latest one, so sparklines still get one point per tick.
  void replace_latest(std::shared_ptr<const PublishedTick> report);
  std::shared_ptr<const PublishedTick> latest() const { return latest_; }
  /// The PublishedTick before the latest one, or null.
  std::shared_ptr<const PublishedTick> previous() const { return previous_; }
  /// The port figures of the window's ticks, oldest first (at most `capacity`).
  const std::deque<TickFigures>& figures() const { return figures_; }
  /// One port's figures in each tick of the window, oldest first; null where the port was
  /// not in that tick.
  std::vector<const std::vector<std::optional<Rate>>*> port_figures(const std::string& device,
                                                                    std::uint32_t port) const;

 private:
  std::size_t capacity_;
  std::shared_ptr<const PublishedTick> latest_;
  std::shared_ptr<const PublishedTick> previous_;
  std::deque<TickFigures> figures_;
};

/// Columns of the ports table, in display order.
const std::vector<std::string>& port_columns();

struct PortsTable {
  std::vector<Row> rows;                  ///< sorted and filtered
  std::vector<std::size_t> port_indices;  ///< rows[i] shows report.ports[port_indices[i]]
};
PortsTable build_ports_table(const PublishedTick& report, const UiState& state);

/// A rate cell: the state word for init/reset/stale (dim; reset is warn), "-" when absent.
Cell rate_cell(const std::optional<Rate>& rate, const std::string& suffix);
/// Colour class of a pause occupancy fraction.
Tone pause_tone(double fraction);
Tone severity_tone(Severity severity);

/// Findings that are not resolved first, then the rest, filtered by `state.filter`.
std::vector<const Finding*> visible_findings(const PublishedTick& report, const UiState& state);
/// "SEV", "RULE", "WHERE", "STATE", "SUMMARY" cells of one finding.
Row finding_row(const Finding& finding);
/// finding_row without its last cell, the summary: what a table's column widths need of a row
/// it does not show (the last column is not padded).
Row finding_row_head(const Finding& finding);
/// The worst active (pending or firing) finding of each port, from one pass over a tick's
/// findings: a lookup per port, where a scan of every finding per port cost most of a frame on
/// 64 ports with thousands of findings. Lifetime evidence is not a port's live state.
class WorstFindings {
 public:
  explicit WorstFindings(const std::vector<Finding>& findings);
  /// The first of the highest severity, in the findings' order, among the port's own findings
  /// and its device's findings without a port label; null when there is none.
  const Finding* of(const std::string& device, const std::string& port) const;

 private:
  struct Worst {
    const Finding* finding = nullptr;
    std::size_t position = 0;  ///< in the findings' order, which breaks ties
  };
  const Worst* find(const std::string& device, const std::string& port) const;
  std::map<std::pair<std::string, std::string>, Worst> by_place_;  ///< (device, port or "")
};

/// One character per value, scaled to the window's maximum (0 at the bottom). Missing values
/// are blanks. `unicode` uses block elements; otherwise the ASCII ramp "_.:-=+*#" (non-UTF-8
/// locales, monochrome logs).
std::string sparkline(const std::vector<std::optional<double>>& values, bool unicode);

/// Case-insensitive substring match; an empty needle matches.
bool matches_filter(const Row& row, const std::string& filter);

std::string port_label(const PublishedTick& report, const TickPort& port);

}  // namespace rdmatop::tui
