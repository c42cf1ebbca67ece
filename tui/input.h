// Keys and what they do to the UI state: pure, so every binding is unit-tested without a
// terminal. The ncurses back end translates its key codes into Key; nothing else does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tui/view_model.h"

namespace rdmatop::tui {

struct Key {
  enum class Kind : std::uint8_t {
    character,  ///< `ch` holds it
    up,
    down,
    page_up,
    page_down,
    home,
    end,
    enter,
    escape,
    tab,
    backspace,
    f1,   ///< help
    f6,   ///< next sort column
    f10,  ///< quit
    resize,
  };
  Kind kind = Kind::character;
  char ch = 0;
};

enum class Action : std::uint8_t { none, quit, interval_changed };

/// What the keys act on in the current PublishedTick.
struct Counts {
  std::size_t ports = 0;     ///< rows of the filtered ports table
  std::size_t findings = 0;  ///< rows of the filtered findings list
  std::size_t page = 10;     ///< rows a page up/down moves
};

/// Refresh intervals +/- step through (seconds).
const std::vector<double>& interval_steps();

Action apply_key(UiState& state, const Key& key, const Counts& counts);

/// Keys and their meaning, for the help overlay and docs/tui.md.
const std::vector<std::pair<std::string, std::string>>& key_help();

}  // namespace rdmatop::tui
