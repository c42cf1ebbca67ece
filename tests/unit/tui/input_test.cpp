#include <catch2/catch.hpp>

#include "tui/input.h"

using namespace rdmatop::tui;
using K = Key::Kind;

namespace {

Key ch(char c) {
  return Key{K::character, c};
}

Key kind(K k) {
  return Key{k, 0};
}

const Counts kCounts{3, 2, 10};

}  // namespace

TEST_CASE("arrows and j/k move the cursor within the rows", "[tui]") {
  UiState s;
  CHECK(apply_key(s, kind(K::down), kCounts) == Action::none);
  CHECK(s.port_cursor == 1);
  apply_key(s, ch('j'), kCounts);
  apply_key(s, ch('j'), kCounts);
  CHECK(s.port_cursor == 2);  // clamped at the last row
  apply_key(s, ch('k'), kCounts);
  CHECK(s.port_cursor == 1);
  apply_key(s, kind(K::home), kCounts);
  CHECK(s.port_cursor == 0);
  apply_key(s, kind(K::up), kCounts);
  CHECK(s.port_cursor == 0);
  apply_key(s, kind(K::end), kCounts);
  CHECK(s.port_cursor == 2);
  apply_key(s, kind(K::down), Counts{0, 0, 10});
  CHECK(s.port_cursor == 0);
}

TEST_CASE("Tab switches panels; the cursor moves in the focused one", "[tui]") {
  UiState s;
  apply_key(s, kind(K::tab), kCounts);
  CHECK(s.panel == Panel::findings);
  apply_key(s, kind(K::down), kCounts);
  apply_key(s, kind(K::down), kCounts);
  CHECK(s.finding_cursor == 1);
  CHECK(s.port_cursor == 0);
  apply_key(s, kind(K::tab), kCounts);
  CHECK(s.panel == Panel::ports);
}

TEST_CASE("Enter opens the port detail, Esc goes back, arrows scroll it", "[tui]") {
  UiState s;
  apply_key(s, kind(K::enter), kCounts);
  CHECK(s.view == View::detail);
  apply_key(s, kind(K::down), kCounts);
  apply_key(s, kind(K::page_down), kCounts);
  CHECK(s.detail_scroll == 11);
  CHECK(s.port_cursor == 0);
  apply_key(s, kind(K::escape), kCounts);
  CHECK(s.view == View::main);
  CHECK(s.detail_scroll == 0);
  // No ports: nothing to open.
  apply_key(s, kind(K::enter), Counts{0, 0, 10});
  CHECK(s.view == View::main);
}

TEST_CASE("sort keys cycle columns and reverse", "[tui]") {
  UiState s;
  apply_key(s, ch('>'), kCounts);
  CHECK(s.sort_column == 1);
  apply_key(s, kind(K::f6), kCounts);
  CHECK(s.sort_column == 2);
  apply_key(s, ch('<'), kCounts);
  apply_key(s, ch('<'), kCounts);
  apply_key(s, ch('<'), kCounts);
  CHECK(s.sort_column == port_columns().size() - 1);  // wraps around
  apply_key(s, ch('r'), kCounts);
  CHECK(s.sort_descending);
}

TEST_CASE("/ edits the filter; Enter keeps it, Esc clears it", "[tui]") {
  UiState s;
  s.port_cursor = 2;
  apply_key(s, ch('/'), kCounts);
  CHECK(s.editing_filter);
  for (char c : std::string("mlx5q")) apply_key(s, ch(c), kCounts);
  CHECK(s.filter == "mlx5q");  // q is text while editing, not quit
  CHECK(apply_key(s, kind(K::backspace), kCounts) == Action::none);
  CHECK(s.filter == "mlx5");
  CHECK(s.port_cursor == 0);
  apply_key(s, kind(K::enter), kCounts);
  CHECK_FALSE(s.editing_filter);
  CHECK(s.filter == "mlx5");
  apply_key(s, ch('/'), kCounts);
  apply_key(s, kind(K::escape), kCounts);
  CHECK(s.filter.empty());
}

TEST_CASE("space pauses, +/- step the interval, q and F10 quit, ? toggles help", "[tui]") {
  UiState s;
  apply_key(s, ch(' '), kCounts);
  CHECK(s.paused);
  s.interval_seconds = 1.0;
  CHECK(apply_key(s, ch('+'), kCounts) == Action::interval_changed);
  CHECK(s.interval_seconds == 2.0);
  apply_key(s, ch('-'), kCounts);
  apply_key(s, ch('-'), kCounts);
  CHECK(s.interval_seconds == 0.5);
  s.interval_seconds = 0.7;  // an odd --interval joins the ladder
  apply_key(s, ch('+'), kCounts);
  CHECK(s.interval_seconds == 1.0);
  s.interval_seconds = interval_steps().front();
  CHECK(apply_key(s, ch('-'), kCounts) == Action::none);
  apply_key(s, ch('?'), kCounts);
  CHECK(s.view == View::help);
  apply_key(s, kind(K::f1), kCounts);
  CHECK(s.view == View::main);
  CHECK(apply_key(s, ch('q'), kCounts) == Action::quit);
  CHECK(apply_key(s, kind(K::f10), kCounts) == Action::quit);
}
