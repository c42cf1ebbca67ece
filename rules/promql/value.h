// PromQL values: scalars, instant vectors and range vectors (matrices), with the label and
// staleness helpers the evaluator shares. Timestamps are int64 milliseconds, as in Prometheus.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "collector/normalize/series.h"

namespace rdmatop::promql {

/// The NaN PromQL returns where a value is undefined (scalar() of a non-singleton vector...).
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Milliseconds since the epoch (or since the start of a test), as Prometheus stores them.
using Timestamp = std::int64_t;

/// The metric name is carried as the label "__name__", sorted with the other labels.
inline constexpr const char* kMetricNameLabel = "__name__";

/// Prometheus's default lookback for instant selectors (promql engine `defaultLookbackDelta`).
inline constexpr Timestamp kLookbackDeltaMs = 5 * 60 * 1000;

/// The special NaN Prometheus writes when a series disappears from a scrape
/// (prometheus/model/value/value.go `StaleNaN` = 0x7ff0000000000002).
double stale_nan();
bool is_stale_nan(double v);

struct Point {
  Timestamp t = 0;
  double v = 0;
};

/// One element of an instant vector.
struct Sample {
  Labels labels;
  double value = 0;
};

/// One series of a range vector.
struct RangeSeries {
  Labels labels;
  std::vector<Point> points;
};

using Vector = std::vector<Sample>;
using Matrix = std::vector<RangeSeries>;

enum class ValueType : std::uint8_t { scalar, vector, matrix, string };

/// The result of evaluating an expression at one timestamp.
struct Value {
  ValueType type = ValueType::vector;
  double scalar = 0;
  Vector vector;
  Matrix matrix;
  std::string string;
};

const char* to_string(ValueType type);

// Label-set helpers (labels are always kept sorted by name).
void set_label(Labels& labels, const std::string& name, const std::string& value);
void delete_label(Labels& labels, const std::string& name);
Labels without_metric_name(const Labels& labels);
/// `{a="x", b="y"}` style, with the metric name in front when present (as Prometheus prints).
std::string format_labels(const Labels& labels);
/// Mixes `v` into the running hash `h` (boost's hash_combine, 64-bit constant).
inline std::uint64_t hash_combine(std::uint64_t h, std::uint64_t v) {
  return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
}
/// Mixes one label into a running hash (start from 0). Hash tables keyed by label sets use it
/// instead of building key strings per sample, and compare the labels exactly on a hit.
std::uint64_t hash_label(std::uint64_t h, std::string_view name, std::string_view value);
/// hash_label over every label, in order.
std::uint64_t hash_labels(const Labels& labels);
/// Series struct -> evaluator labels (the name becomes `__name__`).
Labels series_labels(const Series& series);

/// Shortest round-trip text of a float as Go's fmt "%v" prints it (used by templates and by
/// test output, so rdmatop and Prometheus print the same numbers).
std::string format_float(double v);

/// Go's strconv.FormatFloat(v, 'E', -1, 64): "1.3E+01", "1E+00" (promtool's sample output).
std::string format_float_exp(double v);

/// Go's labels.Labels.String(): every label, `__name__` included, as `{a="x", b="y"}`.
std::string format_labels_plain(const Labels& labels);

}  // namespace rdmatop::promql
