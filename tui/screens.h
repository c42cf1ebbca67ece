// The screens (header, ports table, findings panel, port detail, help) rendered into a Frame.
// Shared by the interactive UI and batch mode; no terminal here.
#pragma once

#include <cstddef>
#include <string>

#include "tui/canvas.h"
#include "tui/input.h"
#include "tui/view_model.h"

namespace rdmatop::tui {

struct FrameContext {
  std::string source_label;  ///< "live", "demo: pfc-storm", ...
  bool replay = false;       ///< the provider is a recording or a scenario
  bool ended = false;        ///< the provider has no more snapshots
  std::size_t width = 120;
  std::size_t height = 0;  ///< 0: unlimited (batch mode shows everything, no key bar)
  bool unicode = true;     ///< block-element sparklines; ASCII otherwise
};

/// Row counts the keys act on, for the current PublishedTick and state.
Counts counts_for(const PublishedTick& report, const UiState& state, const FrameContext& ctx);

/// Renders the current view of `history.latest()` (which must not be null). Clamps the cursors
/// and the scroll offset in `state` to what exists, so keys never point past the end.
Frame render_frame(const History& history, UiState& state, const FrameContext& ctx);

/// The per-priority PFC table of one port (also used by the detail view tests).
std::vector<Row> pfc_rows(const TickPort& port);
const std::vector<std::string>& pfc_columns();

}  // namespace rdmatop::tui
