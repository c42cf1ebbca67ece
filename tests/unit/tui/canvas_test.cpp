// A panel's table built for the rows it shows only: the same lines, the same column widths, as
// the whole table cut to its window.
#include <catch2/catch.hpp>

#include <optional>
#include <random>
#include <string>
#include <vector>

#include "tui/canvas.h"

namespace rdmatop::tui {
namespace canvas_test {

std::string random_text(std::mt19937& rng) {
  static const std::vector<std::string> pieces = {"a", "mlx5_0", "é", "▇", " ", "PfcStorm", "7"};
  std::string text;
  for (int n = std::uniform_int_distribution<int>(0, 6)(rng); n > 0; --n) {
    text += pieces[std::uniform_int_distribution<std::size_t>(0, pieces.size() - 1)(rng)];
  }
  return text;
}

void check_same_line(const Line& got, const Line& want) {
  CHECK(got.selected == want.selected);
  REQUIRE(got.spans.size() == want.spans.size());
  for (std::size_t s = 0; s < got.spans.size(); ++s) {
    CHECK(got.spans[s].text == want.spans[s].text);
    CHECK(got.spans[s].tone == want.spans[s].tone);
  }
}

TEST_CASE("canvas: the lines of the visible rows are the whole table's lines of those rows",
          "[tui]") {
  std::mt19937 rng(18);
  const std::vector<std::string> header = {"SEV", "RULE", "WHERE", "SUMMARY"};
  for (int round = 0; round < 200; ++round) {
    std::vector<Row> rows(std::uniform_int_distribution<std::size_t>(0, 40)(rng));
    for (Row& row : rows) {
      for (std::size_t c = 0; c < header.size(); ++c) {
        row.cells.push_back(Cell{random_text(rng), c % 2 == 0 ? Tone::warn : Tone::normal, {}});
      }
    }
    std::optional<std::size_t> cursor;
    if (!rows.empty() && round % 3 != 0) {
      cursor = std::uniform_int_distribution<std::size_t>(0, rows.size() - 1)(rng);
    }
    const std::size_t max_lines = std::uniform_int_distribution<std::size_t>(0, 50)(rng);
    INFO("round " << round << ": " << rows.size() << " rows, " << max_lines << " lines");

    const RowRange shown = visible_rows(rows.size(), cursor, max_lines);
    REQUIRE(shown.first <= shown.end);
    REQUIRE(shown.end <= rows.size());
    if (max_lines == 0 || rows.size() + 1 <= max_lines) {
      CHECK((shown.first == 0 && shown.end == rows.size()));
    } else {
      CHECK(shown.end - shown.first ==
            std::min(rows.size(), std::max<std::size_t>(max_lines, 2) - 1));
    }
    if (cursor && max_lines >= 2) CHECK((shown.first <= *cursor && *cursor < shown.end));

    const std::vector<Line> whole = table_lines(header, rows, cursor);
    const std::vector<Line> part = table_lines(header, rows, cursor, shown);
    REQUIRE(part.size() == 1 + (shown.end - shown.first));
    check_same_line(part.front(), whole.front());
    for (std::size_t r = shown.first; r < shown.end; ++r) {
      check_same_line(part[1 + r - shown.first], whole[1 + r]);
    }
  }
}

TEST_CASE("canvas: every column but the last is padded to its widest cell of any row", "[tui]") {
  const std::vector<Row> rows = {
      Row{{Cell{"a", Tone::normal, {}}, Cell{"x", Tone::normal, {}}}},
      Row{{Cell{"wide cell", Tone::normal, {}}, Cell{"the last one is long", Tone::normal, {}}}},
  };
  // Only the first row shown: its first cell still takes the width of the hidden second row's.
  const auto lines = table_lines({"H1", "H2"}, rows, std::nullopt, RowRange{0, 1});
  REQUIRE(lines.size() == 2);
  CHECK(line_text(lines[0], 100) == "  H1         H2");
  CHECK(line_text(lines[1], 100) == "  a          x");
}

}  // namespace canvas_test
}  // namespace rdmatop::tui
