#include "tui/input.h"

#include <algorithm>

namespace rdmatop::tui {

namespace {

using K = Key::Kind;

void move_cursor(std::size_t& cursor, std::size_t rows, long delta) {
  if (rows == 0) {
    cursor = 0;
    return;
  }
  const long next = std::clamp(static_cast<long>(cursor) + delta, 0L, static_cast<long>(rows) - 1);
  cursor = static_cast<std::size_t>(next);
}

void move_scroll(std::size_t& scroll, long delta) {
  scroll = static_cast<std::size_t>(std::max(0L, static_cast<long>(scroll) + delta));
}

Action step_interval(UiState& state, int direction) {
  const auto& steps = interval_steps();
  // The nearest step above (or below) the current interval, so an odd --interval joins the
  // ladder at the right place.
  if (direction > 0) {
    for (double s : steps) {
      if (s > state.interval_seconds + 1e-9) {
        state.interval_seconds = s;
        return Action::interval_changed;
      }
    }
  } else {
    for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
      if (*it < state.interval_seconds - 1e-9) {
        state.interval_seconds = *it;
        return Action::interval_changed;
      }
    }
  }
  return Action::none;
}

Action filter_key(UiState& state, const Key& key) {
  switch (key.kind) {
    case K::enter:
      state.editing_filter = false;
      break;
    case K::escape:
      state.editing_filter = false;
      state.filter.clear();
      break;
    case K::backspace:
      if (!state.filter.empty()) state.filter.pop_back();
      break;
    case K::character:
      if (key.ch >= ' ' && key.ch <= '~') state.filter += key.ch;
      break;
    default:
      break;
  }
  state.port_cursor = 0;
  state.finding_cursor = 0;
  return Action::none;
}

}  // namespace

const std::vector<double>& interval_steps() {
  static const std::vector<double> kSteps = {0.25, 0.5, 1, 2, 5, 10, 30, 60};
  return kSteps;
}

Action apply_key(UiState& state, const Key& key, const Counts& counts) {
  if (state.editing_filter) return filter_key(state, key);
  const bool scrolling = state.view != View::main;
  std::size_t& cursor = state.panel == Panel::ports ? state.port_cursor : state.finding_cursor;
  const std::size_t rows = state.panel == Panel::ports ? counts.ports : counts.findings;
  const long page = static_cast<long>(std::max<std::size_t>(counts.page, 1));
  const auto move = [&](long delta) {
    if (scrolling) {
      move_scroll(state.detail_scroll, delta);
    } else {
      move_cursor(cursor, rows, delta);
    }
  };
  if (key.kind == K::character) {
    switch (key.ch) {
      case 'q':
      case 'Q':
        return Action::quit;
      case 'k':
        move(-1);
        return Action::none;
      case 'j':
        move(1);
        return Action::none;
      case 'g':
        move(-1'000'000);
        return Action::none;
      case 'G':
        move(1'000'000);
        return Action::none;
      case '?':
      case 'h':
        state.view = state.view == View::help ? View::main : View::help;
        state.detail_scroll = 0;
        return Action::none;
      case '/':
        state.editing_filter = true;
        state.view = View::main;
        return Action::none;
      case ' ':
        state.paused = !state.paused;
        return Action::none;
      case '+':
      case '=':
        return step_interval(state, +1);
      case '-':
        return step_interval(state, -1);
      case '>':
      case '.':
        state.sort_column = (state.sort_column + 1) % port_columns().size();
        return Action::none;
      case '<':
      case ',':
        state.sort_column = (state.sort_column + port_columns().size() - 1) % port_columns().size();
        return Action::none;
      case 'r':
      case 'I':
        state.sort_descending = !state.sort_descending;
        return Action::none;
      default:
        return Action::none;
    }
  }
  switch (key.kind) {
    case K::up:
      move(-1);
      break;
    case K::down:
      move(1);
      break;
    case K::page_up:
      move(-page);
      break;
    case K::page_down:
      move(page);
      break;
    case K::home:
      move(-1'000'000);
      break;
    case K::end:
      move(1'000'000);
      break;
    case K::tab:
      if (state.view == View::main) {
        state.panel = state.panel == Panel::ports ? Panel::findings : Panel::ports;
      }
      break;
    case K::enter:
      if (state.view == View::main && state.panel == Panel::ports && counts.ports > 0) {
        state.view = View::detail;
        state.detail_scroll = 0;
      }
      break;
    case K::escape:
      if (state.view != View::main) {
        state.view = View::main;
      } else {
        state.filter.clear();
      }
      state.detail_scroll = 0;
      break;
    case K::f1:
      state.view = state.view == View::help ? View::main : View::help;
      state.detail_scroll = 0;
      break;
    case K::f6:
      state.sort_column = (state.sort_column + 1) % port_columns().size();
      break;
    case K::f10:
      return Action::quit;
    default:
      break;
  }
  return Action::none;
}

const std::vector<std::pair<std::string, std::string>>& key_help() {
  static const std::vector<std::pair<std::string, std::string>> kHelp = {
      {"Up/Down, k/j", "move the cursor (scroll in detail and help)"},
      {"PgUp/PgDn, Home/End, g/G", "move a page / to the first or last row"},
      {"Tab", "switch between the ports and the findings panel"},
      {"Enter", "open the selected port's detail view"},
      {"Esc", "back to the main view (in the main view: clear the filter)"},
      {"< >  , .  F6", "sort the ports by the previous / next column"},
      {"r, I", "reverse the sort order"},
      {"/", "filter ports and findings (Enter keeps it, Esc clears it)"},
      {"Space", "pause / resume collection"},
      {"+ -", "refresh more slowly / faster"},
      {"?, h, F1", "this help (any of them again, or Esc, closes it)"},
      {"q, F10, Ctrl-C", "quit"},
  };
  return kHelp;
}

}  // namespace rdmatop::tui
