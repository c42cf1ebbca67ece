#include "tui/canvas.h"

#include <algorithm>

namespace rdmatop::tui {

namespace {

bool is_continuation(char c) {
  return (static_cast<unsigned char>(c) & 0xC0U) == 0x80U;
}

}  // namespace

std::size_t display_width(const std::string& text) {
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return !is_continuation(c); }));
}

std::string elide_left(const std::string& text, std::size_t width, const std::string& marker) {
  const std::size_t w = display_width(text);
  if (w <= width) return text;
  const std::size_t marker_width = display_width(marker);
  if (width <= marker_width) return truncate_display(marker, width);
  std::size_t drop = w - (width - marker_width);
  std::size_t i = 0;
  while (i < text.size() && (drop > 0 || is_continuation(text[i]))) {
    if (!is_continuation(text[i])) --drop;
    ++i;
  }
  return marker + text.substr(i);
}

std::string truncate_display(const std::string& text, std::size_t width) {
  std::size_t seen = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (is_continuation(text[i])) continue;
    if (seen == width) return text.substr(0, i);
    ++seen;
  }
  return text;
}

std::string pad_display(const std::string& text, std::size_t width) {
  const std::size_t w = display_width(text);
  return w >= width ? text : text + std::string(width - w, ' ');
}

std::string line_text(const Line& line, std::size_t width) {
  std::string out;
  for (const Span& s : line.spans) out += s.text;
  out = truncate_display(out, width);
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::string frame_text(const Frame& frame, std::size_t width) {
  std::string out;
  for (const Line& line : frame) out += line_text(line, width) + "\n";
  return out;
}

std::vector<Line> table_lines(const std::vector<std::string>& header, const std::vector<Row>& rows,
                              std::optional<std::size_t> cursor) {
  return table_lines(header, rows, cursor, RowRange{0, rows.size()});
}

RowRange visible_rows(std::size_t rows, std::optional<std::size_t> cursor, std::size_t max_lines) {
  if (max_lines == 0 || rows + 1 <= max_lines) return {0, rows};
  const std::size_t visible = std::max<std::size_t>(max_lines, 2) - 1;
  std::size_t first = 0;
  if (cursor && *cursor >= visible) first = std::min(*cursor + 1 - visible, rows - visible);
  return {first, std::min(first + visible, rows)};
}

std::vector<Line> table_lines(const std::vector<std::string>& header, const std::vector<Row>& rows,
                              std::optional<std::size_t> cursor, RowRange shown) {
  // The last column is not padded, so its width is not needed (it is the long one: a finding's
  // summary).
  std::vector<std::size_t> widths(header.size(), 0);
  for (std::size_t c = 0; c + 1 < header.size(); ++c) widths[c] = display_width(header[c]);
  for (const Row& row : rows) {
    for (std::size_t c = 0; c + 1 < widths.size() && c < row.cells.size(); ++c) {
      widths[c] = std::max(widths[c], display_width(row.cells[c].text));
    }
  }
  const auto cell_text = [&](const std::string& text, std::size_t c) {
    return c + 1 == widths.size() ? text : pad_display(text, widths[c]) + "  ";
  };
  std::vector<Line> out;
  Line head;
  head.spans.push_back(Span{"  ", Tone::heading});
  for (std::size_t c = 0; c < header.size(); ++c) {
    head.spans.push_back(Span{cell_text(header[c], c), Tone::heading});
  }
  out.push_back(std::move(head));
  for (std::size_t r = shown.first; r < shown.end && r < rows.size(); ++r) {
    Line line;
    line.selected = cursor && *cursor == r;
    line.spans.push_back(Span{line.selected ? "> " : "  ", Tone::normal});
    for (std::size_t c = 0; c < rows[r].cells.size() && c < widths.size(); ++c) {
      line.spans.push_back(Span{cell_text(rows[r].cells[c].text, c), rows[r].cells[c].tone});
    }
    out.push_back(std::move(line));
  }
  return out;
}

}  // namespace rdmatop::tui
