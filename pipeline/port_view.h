// One view of a port per tick: the figures every surface shows of it (the TUI's ports table and
// PFC table, the text report's PFC table, the JSON report's "figures"), computed once in the
// pipeline from one declarative table, so no surface derives them from series names itself and
// the surfaces cannot drift apart. Each figure names its series (rows of the metric catalogue),
// the label it filters on and how the matching rates combine; its unit comes from the
// catalogue's unit of those series, and a surface only formats it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collector/normalize/rates.h"
#include "collector/normalize/series.h"

namespace rdmatop {

struct SeriesWithRate;

/// How the rates of a figure's matching series combine: a sum (traffic, events) or the
/// largest (the share of time paused: the worst priority is the port's pause).
enum class FigureCombine { sum, max };

/// One figure: the rates of every counter series named in `series` (and, when `direction` is
/// set, with that direction label; per priority, also that priority), combined.
struct FigureDef {
  std::string_view key;                  ///< JSON member name: "rx_bytes"
  std::string title;                     ///< column title: "RX B/s" (a rate's ends in its unit)
  std::vector<std::string_view> series;  ///< catalogue names, all of one unit
  std::string_view direction;            ///< "rx", "tx", or "" for any
  FigureCombine combine = FigureCombine::sum;
  /// format_rate's suffix, from the series' catalogue unit: " B/s" (bytes), "%" (seconds: a
  /// share of time) or "/s" (a count).
  std::string_view unit;
};

/// The format_rate suffix of a rate of the catalogue series `series`: " B/s", "%" or "/s".
std::string_view figure_unit(std::string_view series);

/// The port figures, in display order (PortView::figures has one entry per row).
const std::vector<FigureDef>& port_figure_defs();
/// The per-priority figures, in display order (PriorityView::figures likewise).
const std::vector<FigureDef>& priority_figure_defs();

/// Indices into port_figure_defs(), for surfaces that place a figure by meaning.
enum class PortFigure : std::size_t {
  rx_bytes,
  tx_bytes,
  rx_pause,
  tx_pause,
  ecn,
  cnp,
  retransmits,
  drops,
};

struct PriorityView {
  std::string priority;                      ///< the label value: "3"
  std::optional<bool> pfc_enabled;           ///< rdma_pfc_enabled; none when the host does not say
  std::vector<std::optional<Rate>> figures;  ///< per priority_figure_defs(); none: no series
};

struct PortView {
  /// No figure and no priority: the view of a tick built without views (PortViews::skip).
  static PortView none();

  std::vector<std::optional<Rate>> figures;  ///< per port_figure_defs(); none: no series
  /// Priorities with PFC on or a non-zero counter of the priority figures (an idle priority
  /// would only repeat zeros), in label order.
  std::vector<PriorityView> priorities;

  const std::optional<Rate>& figure(PortFigure f) const {
    return figures[static_cast<std::size_t>(f)];
  }
};

/// True for the series the priority table shows: those of priority_figure_defs() and
/// rdma_pfc_enabled (a surface listing the other series leaves these out).
bool is_priority_table_series(std::string_view name);

/// The view of one port from its canonical series (TickPort::series, with their rates).
PortView build_port_view(const std::vector<SeriesWithRate>& series);

/// Sum (or max) of rates; none when `rates` is empty; the first rate that is not ok wins (its
/// state, value 0), so a combined figure is never a number built on a missing or reset input.
std::optional<Rate> combine_rates(const std::vector<Rate>& rates, FigureCombine combine);

}  // namespace rdmatop
