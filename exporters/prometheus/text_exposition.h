// The Prometheus text format (0.0.4) of metric families, written straight into one string.
// Byte for byte what prometheus-cpp 1.0.1's TextSerializer writes (the unit test holds the two
// equal on generated families), at a fraction of its cost: it formats through an ostream, and
// serializing the 16-port host's 8,951 samples was 39% of the exporter's poll thread, more than
// collecting and diagnosing them (bench/README.md). Its choices are kept so the page does not
// change: values as printf's "%.16g" ("Nan", "+Inf", "-Inf" apart), label values escaped
// (a backslash, double quote and newline as \\, \" and \n), HELP written as it is, and a
// histogram's "+Inf" bucket added when its last bound is finite.
#pragma once

#include <prometheus/metric_family.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace rdmatop {

/// Appends the text exposition of `families` to `out`.
void append_text_exposition(std::string& out,
                            const std::vector<prometheus::MetricFamily>& families);
/// The same for one family.
void append_family(std::string& out, const prometheus::MetricFamily& family);

// The pieces, for writers that make the lines of a family themselves
// (metrics_collectable.cpp's render_metrics_text).

/// "# HELP name help" (left out when `help` is empty) and "# TYPE name type" lines.
void append_family_head(std::string& out, std::string_view name, std::string_view help,
                        prometheus::MetricType type);
/// Text that LineWriter appends to without writing the room it reserves first: a
/// std::string's resize fills the room with zeros before the writer writes it, and the lines of
/// a raw counter map reserve ~20 KB at a time (the zeros were 4% of the instructions of a
/// collection of the 16-port host, issue 18). The room is zeroed only when it grows, and a
/// buffer kept from page to page stops growing.
class TextBuffer {
 public:
  std::string_view view() const { return {room_.data(), size_}; }
  std::size_t size() const { return size_; }
  void clear() { size_ = 0; }
  /// Where `more` bytes after the text may be written (then end_at says where they end).
  char* room_for(std::size_t more) {
    if (room_.size() - size_ < more) room_.resize(std::max(2 * room_.size(), size_ + more));
    return room_.data() + size_;
  }
  /// The text now ends at `end`, a pointer into the room.
  void end_at(const char* end) { size_ = static_cast<std::size_t>(end - room_.data()); }

 private:
  std::string room_;
  std::size_t size_ = 0;
};

/// Writes one line (or a piece of one) through a pointer into space reserved once, then gives
/// back what it did not use. A sample line built of std::string appends, about 25 for a port
/// series with five labels, cost more in each append's length check and memcpy call than in
/// its bytes: that was most of rendering the 16-port page (issue 18, bench/README.md).
class LineWriter {
 public:
  /// Room for what `value` writes: "%.16g" of a double is at most 23 bytes
  /// ("-1.234567890123457e-308").
  static constexpr std::size_t kMaxValueText = 32;
  /// Most bytes `label_value` writes for `value`: each byte may become a two-byte escape.
  static std::size_t label_value_bound(std::string_view value) { return 2 * value.size(); }
  /// Most bytes `label` writes: the name, the value escaped, a comma, "=" and the quotes.
  static std::size_t label_bound(std::string_view name, std::string_view value) {
    return name.size() + label_value_bound(value) + 4;
  }

  /// Reserves `bound` bytes at the end of `out`, at least what the writes will need.
  LineWriter(TextBuffer& out, std::size_t bound) : out_(out), next_(out.room_for(bound)) {}
  /// Cuts `out` back to what was written.
  ~LineWriter() { out_.end_at(next_); }
  LineWriter(const LineWriter&) = delete;
  LineWriter& operator=(const LineWriter&) = delete;

  // Inline: a literal's length is then known where it is copied, and the copy is a store.
  void text(std::string_view text) {
    std::memcpy(next_, text.data(), text.size());
    next_ += text.size();
  }
  void text(char c) { *next_++ = c; }
  /// A label's value, escaped (backslash, double quote, line feed), without the quotes.
  void label_value(std::string_view value);
  /// `name="value"`, escaped, with a comma before it unless it is the `first` label.
  void label(bool first, std::string_view name, std::string_view value) {
    if (!first) text(',');
    text(name);
    text("=\"");
    label_value(value);
    text('"');
  }
  /// A sample value, as "%.16g" (or Nan, +Inf, -Inf).
  void value(double value);
  /// value(static_cast<double>(count)), the same text, for a raw counter: formatted as an
  /// integer without the round trip through double where the double is exact (below 2^53).
  void counter_value(std::uint64_t count);

 private:
  TextBuffer& out_;
  char* next_;
};

/// `name="value"`, escaped, with a comma before it unless it is the `first` label.
void append_label(std::string& out, bool first, std::string_view name, std::string_view value);
/// A sample value, as "%.16g" (or Nan, +Inf, -Inf).
void append_value(std::string& out, double value);

}  // namespace rdmatop
