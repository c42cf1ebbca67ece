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
/// `name="value"`, escaped, with a comma before it unless it is the `first` label.
void append_label(std::string& out, bool first, std::string_view name, std::string_view value);
/// A label's value alone, escaped (backslash, double quote, line feed), without the quotes.
void append_label_value(std::string& out, std::string_view value);
/// A sample value, as "%.16g" (or Nan, +Inf, -Inf).
void append_value(std::string& out, double value);

}  // namespace rdmatop
