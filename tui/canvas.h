// The abstract canvas every screen renders into: lines of toned spans. The ncurses back end
// (screen_ncurses.cpp) paints it; batch mode prints it as plain text. Width is counted in code
// points: everything the TUI draws is single-width (ASCII or block elements).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "tui/view_model.h"

namespace rdmatop::tui {

struct Span {
  std::string text;
  Tone tone = Tone::normal;
};

struct Line {
  std::vector<Span> spans;
  bool selected = false;  ///< the cursor row: drawn in reverse video
};

using Frame = std::vector<Line>;

/// Code points in UTF-8 `text` (continuation bytes do not count).
std::size_t display_width(const std::string& text);

/// `text` cut from the left to at most `width` code points, the cut marked by `marker`, so the
/// telling end of a long path stays visible.
std::string elide_left(const std::string& text, std::size_t width, const std::string& marker);
/// At most `width` code points of `text`, never splitting a UTF-8 sequence.
std::string truncate_display(const std::string& text, std::size_t width);
/// `text` padded with spaces to `width` code points (longer text is kept whole).
std::string pad_display(const std::string& text, std::size_t width);

/// Plain text of a line, cut to `width` code points, trailing spaces removed.
std::string line_text(const Line& line, std::size_t width);
/// The frame as newline-terminated plain text (batch mode).
std::string frame_text(const Frame& frame, std::size_t width);

/// A table laid out in columns as wide as their widest cell, two spaces apart, the header row
/// first (Tone::heading). Unlike TextTable (present/text_table.h) each cell keeps its
/// colour class and one row can carry the cursor. Every line starts with a two-character
/// gutter: "> " on the cursor row, so the selection shows without colour too.
std::vector<Line> table_lines(const std::vector<std::string>& header, const std::vector<Row>& rows,
                              std::optional<std::size_t> cursor);

/// Rows [first, end) of a table: the part of it a panel shows.
struct RowRange {
  std::size_t first = 0;
  std::size_t end = 0;
};

/// The rows around `cursor` that fit in `max_lines` lines with the header (0: all of them).
RowRange visible_rows(std::size_t rows, std::optional<std::size_t> cursor, std::size_t max_lines);

/// table_lines' header and the lines of the rows in `shown` only, laid out as in the whole table
/// (the column widths are those of every row, so they do not change as the cursor scrolls): a
/// panel of thousands of findings makes the few dozen lines it shows, not one per finding.
std::vector<Line> table_lines(const std::vector<std::string>& header, const std::vector<Row>& rows,
                              std::optional<std::size_t> cursor, RowRange shown);

}  // namespace rdmatop::tui
