// The interactive terminal UI (and its plain-text batch mode), driven by a Monitor.
#pragma once

#include <optional>

#include "pipeline/monitor.h"

namespace rdmatop {

struct TuiOptions {
  double interval_seconds = 1.0;    ///< refresh interval; +/- change it at run time
  std::optional<int> batch_frames;  ///< -n N / --batch: print N frames as text, no curses
  bool replay = false;              ///< the provider is a recording or a scenario (show it)
  std::string source_label;         ///< shown in the header: "live", "demo: pfc-storm", "replay: f"
};

/// Runs until the user quits (or N batch frames are printed, or the provider ends in batch
/// mode); returns the process exit code. Restores the terminal on every exit path.
int run_tui(Monitor& monitor, const TuiOptions& options);

}  // namespace rdmatop
