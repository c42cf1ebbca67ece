#include "exporters/prometheus/text_exposition.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string_view>

namespace rdmatop {

namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

// True when `value` has a byte the text format escapes in a label value: a backslash, a double
// quote or a line feed. Eight bytes are tested at a time ("has a zero byte" on the word XOR
// each of the three bytes repeated, Hacker's Delight 6-1): label values rarely need escaping,
// and testing them byte by byte was the renderer's largest single cost.
bool needs_escape(std::string_view value) {
  constexpr std::uint64_t ones = 0x0101010101010101ULL;
  constexpr std::uint64_t highs = 0x8080808080808080ULL;
  const auto has_zero_byte = [&](std::uint64_t word) {
    return ((word - ones) & ~word & highs) != 0;
  };
  std::size_t i = 0;
  for (; i + sizeof(std::uint64_t) <= value.size(); i += sizeof(std::uint64_t)) {
    std::uint64_t word = 0;
    std::memcpy(&word, value.data() + i, sizeof word);
    if (has_zero_byte(word ^ (ones * '\\')) || has_zero_byte(word ^ (ones * '"')) ||
        has_zero_byte(word ^ (ones * '\n'))) {
      return true;
    }
  }
  for (; i < value.size(); ++i) {
    if (value[i] == '\\' || value[i] == '"' || value[i] == '\n') return true;
  }
  return false;
}

void append_uint(std::string& out, std::uint64_t value) {
  std::array<char, 24> buffer{};
  const auto end = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value).ptr;
  out.append(buffer.data(), end);
}

/// What `write` writes through a LineWriter (at most `bound` bytes), appended to `out`: the
/// text is made in a scratch buffer this thread keeps, as LineWriter writes only to a
/// TextBuffer. Here go the families serialized from prometheus-cpp's MetricFamily (a scrape's
/// own, the probes' histograms), not the collection's lines.
template <class Write>
void append_written(std::string& out, std::size_t bound, const Write& write) {
  thread_local TextBuffer scratch;
  scratch.clear();
  {
    LineWriter line(scratch, bound);
    write(line);
  }
  out += scratch.view();
}

}  // namespace

/// As "%.16g" (std::numeric_limits<double>::max_digits10 - 1 significant digits).
void LineWriter::value(double value) {
  if (std::isnan(value)) {
    text("Nan");
    return;
  }
  if (std::isinf(value)) {
    text(value < 0 ? "-Inf" : "+Inf");
    return;
  }
  char* const end = next_ + kMaxValueText;
  // Counters are whole numbers: below 1e16 "%.16g" prints them as integers, and integer
  // formatting is several times cheaper. -0 keeps its sign, as printf does.
  if (std::fabs(value) < 1e16 && value == std::trunc(value) &&
      !(value == 0 && std::signbit(value))) {
    next_ = std::to_chars(next_, end, static_cast<std::int64_t>(value)).ptr;
  } else {
    // to_chars with a precision is printf's %.*g in the "C" locale ([charconv.to.chars]).
    next_ = std::to_chars(next_, end, value, std::chars_format::general,
                          std::numeric_limits<double>::max_digits10 - 1)
                .ptr;
  }
}

void LineWriter::counter_value(std::uint64_t count) {
  // Below 2^53 the double is the count itself, which value() prints as this integer.
  constexpr std::uint64_t kExactInDouble = std::uint64_t{1} << 53;
  if (count >= kExactInDouble) {
    value(static_cast<double>(count));
    return;
  }
  next_ = std::to_chars(next_, next_ + kMaxValueText, count).ptr;
}

void LineWriter::label_value(std::string_view value) {
  if (!needs_escape(value)) {
    text(value);
    return;
  }
  for (const char c : value) {
    if (c == '\\' || c == '"' || c == '\n') {
      *next_++ = '\\';
      *next_++ = c == '\n' ? 'n' : c;
    } else {
      *next_++ = c;
    }
  }
}

void append_value(std::string& out, double value) {
  append_written(out, LineWriter::kMaxValueText, [&](LineWriter& line) { line.value(value); });
}

namespace {

/// The extra label of a summary's quantile or a histogram's bucket.
struct ExtraLabel {
  std::string_view name;
  double value = 0;
  bool plus_inf = false;  ///< the literal "+Inf" (a histogram's added last bucket)
};

void append_head(std::string& out, const MetricFamily& family, const ClientMetric& metric,
                 std::string_view suffix, const ExtraLabel* extra = nullptr) {
  out += family.name;
  out += suffix;
  if (!metric.label.empty() || extra != nullptr) {
    out += '{';
    bool first = true;
    for (const auto& label : metric.label) {
      append_label(out, first, label.name, label.value);
      first = false;
    }
    if (extra != nullptr) {
      if (!first) out += ',';
      out += extra->name;
      out += "=\"";
      if (extra->plus_inf) {
        out += "+Inf";
      } else {
        append_value(out, extra->value);
      }
      out += '"';
    }
    out += '}';
  }
  out += ' ';
}

void append_tail(std::string& out, const ClientMetric& metric) {
  if (metric.timestamp_ms != 0) {
    out += ' ';
    out += std::to_string(metric.timestamp_ms);
  }
  out += '\n';
}

void append_value_line(std::string& out, const MetricFamily& family, const ClientMetric& metric,
                       double value) {
  append_head(out, family, metric, "");
  append_value(out, value);
  append_tail(out, metric);
}

void append_count_and_sum(std::string& out, const MetricFamily& family, const ClientMetric& metric,
                          std::uint64_t count, double sum) {
  append_head(out, family, metric, "_count");
  append_uint(out, count);
  append_tail(out, metric);
  append_head(out, family, metric, "_sum");
  append_value(out, sum);
  append_tail(out, metric);
}

void append_summary(std::string& out, const MetricFamily& family, const ClientMetric& metric) {
  const auto& summary = metric.summary;
  append_count_and_sum(out, family, metric, summary.sample_count, summary.sample_sum);
  for (const auto& quantile : summary.quantile) {
    const ExtraLabel extra{"quantile", quantile.quantile};
    append_head(out, family, metric, "", &extra);
    append_value(out, quantile.value);
    append_tail(out, metric);
  }
}

void append_histogram(std::string& out, const MetricFamily& family, const ClientMetric& metric) {
  const auto& histogram = metric.histogram;
  append_count_and_sum(out, family, metric, histogram.sample_count, histogram.sample_sum);
  double last = -std::numeric_limits<double>::infinity();
  for (const auto& bucket : histogram.bucket) {
    const ExtraLabel extra{"le", bucket.upper_bound};
    append_head(out, family, metric, "_bucket", &extra);
    last = bucket.upper_bound;
    append_uint(out, bucket.cumulative_count);
    append_tail(out, metric);
  }
  if (last != std::numeric_limits<double>::infinity()) {
    const ExtraLabel extra{"le", 0, true};
    append_head(out, family, metric, "_bucket", &extra);
    append_uint(out, histogram.sample_count);
    append_tail(out, metric);
  }
}

std::string_view type_name(MetricType type) {
  switch (type) {
    case MetricType::Counter:
      return "counter";
    case MetricType::Gauge:
      return "gauge";
    case MetricType::Summary:
      return "summary";
    case MetricType::Untyped:
      return "untyped";
    case MetricType::Histogram:
      return "histogram";
  }
  return {};
}

}  // namespace

void append_label(std::string& out, bool first, std::string_view name, std::string_view value) {
  append_written(out, LineWriter::label_bound(name, value),
                 [&](LineWriter& line) { line.label(first, name, value); });
}

void append_family_head(std::string& out, std::string_view name, std::string_view help,
                        MetricType type) {
  if (!help.empty()) {
    out += "# HELP ";
    out += name;
    out += ' ';
    out += help;
    out += '\n';
  }
  out += "# TYPE ";
  out += name;
  out += ' ';
  out += type_name(type);
  out += '\n';
}

void append_family(std::string& out, const MetricFamily& family) {
  append_family_head(out, family.name, family.help, family.type);
  for (const ClientMetric& metric : family.metric) {
    switch (family.type) {
      case MetricType::Counter:
        append_value_line(out, family, metric, metric.counter.value);
        break;
      case MetricType::Gauge:
        append_value_line(out, family, metric, metric.gauge.value);
        break;
      case MetricType::Untyped:
        append_value_line(out, family, metric, metric.untyped.value);
        break;
      case MetricType::Summary:
        append_summary(out, family, metric);
        break;
      case MetricType::Histogram:
        append_histogram(out, family, metric);
        break;
    }
  }
}

void append_text_exposition(std::string& out, const std::vector<MetricFamily>& families) {
  for (const MetricFamily& family : families) append_family(out, family);
}

}  // namespace rdmatop
