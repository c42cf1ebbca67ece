// PromQL functions: the signature table the parser type-checks against, and the pure range
// computations (rate extrapolation, irate, *_over_time) the evaluator applies per series.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "rules/promql/value.h"

namespace rdmatop::promql {

struct FunctionSpec {
  const char* name;
  std::vector<ValueType> arg_types;
  int optional_args = 0;  ///< how many trailing arguments may be omitted
  ValueType return_type = ValueType::vector;
  bool repeat_last = false;  ///< the last argument may repeat (label_join's source labels)
};

/// nullptr when `name` is not a supported function.
const FunctionSpec* find_function(const std::string& name);
/// All supported functions, for documentation and `rules list`.
const std::vector<FunctionSpec>& all_functions();

/// rate / increase / delta over one series, exactly as Prometheus 2.x `extrapolatedRate`
/// (promql/functions.go): counter resets add the pre-reset value; the result is extrapolated
/// to the window edges when the first/last sample is within 1.1x the average sample interval
/// of the edge (else by half an interval), and never below the counter's zero point.
/// nullopt with fewer than two points.
std::optional<double> extrapolated_rate(const std::vector<Point>& points, Timestamp range_start,
                                        Timestamp range_end, bool is_counter, bool is_rate);

/// What extrapolated_rate reads of a window: its first and last samples, how many samples it
/// holds, and the change between them (for a counter, with its resets corrected).
struct RateSamples {
  Point first;
  Point last;
  std::size_t samples = 0;
  double change = 0;
};
/// extrapolated_rate from what it reads of a window (`samples` >= 2): the evaluator passes it
/// a stored window without copying its points.
double extrapolate(const RateSamples& window, Timestamp range_start, Timestamp range_end,
                   bool is_counter, bool is_rate);

/// A counter's change over the samples in [begin, end) (staleness markers skipped), whose
/// first and last values are `first` and `last`: last - first, plus the value before each
/// reset (the counter restarted from zero).
template <class Iterator>
double counter_change(Iterator begin, Iterator end, double first, double last) {
  // last - first, then each correction added in the window's order, as Prometheus does: the
  // last bits of the sum depend on it.
  double result = last - first;
  double prev = first;
  for (; begin != end; ++begin) {
    if (is_stale_nan(begin->v)) continue;
    if (begin->v < prev) result += prev;
    prev = begin->v;
  }
  return result;
}

/// irate / idelta from the last two points (promql/functions.go `instantValue`).
std::optional<double> instant_value(const std::vector<Point>& points, bool is_rate);

/// resets / changes / *_over_time over the points of one window. `name` is the function name;
/// `param` is quantile_over_time's quantile. nullopt when the function yields no sample.
std::optional<double> over_time(const std::string& name, const std::vector<Point>& points,
                                double param);

/// The Prometheus quantile estimate over unsorted values (promql/quantile.go `quantile`).
double quantile(double q, std::vector<double> values);

/// One classic histogram bucket: its `le` and cumulative count.
struct Bucket {
  double upper_bound = 0;
  double count = 0;
};

/// promql/quantile.go `bucketQuantile` (v2.42.0): linear interpolation inside the bucket the
/// rank falls in; buckets sorted, equal bounds coalesced, counts made monotonic; NaN without a
/// +Inf bucket, with fewer than two buckets or no observations.
double bucket_quantile(double q, std::vector<Bucket> buckets);

/// Neumaier-compensated summation step (promql/functions.go `kahanSumInc`).
void kahan_sum_inc(double inc, double& sum, double& c);

/// Least-squares slope and intercept at `intercept_time` (promql/functions.go
/// `linearRegression`, v2.42.0): Kahan sums; a constant series has slope 0 (NaN when the
/// constant is infinite).
std::pair<double, double> linear_regression(const std::vector<Point>& points,
                                            Timestamp intercept_time);

/// Double exponential smoothing (promql/functions.go `funcHoltWinters`); nullopt with fewer
/// than two points. sf and tf are checked by the caller.
std::optional<double> holt_winters(const std::vector<Point>& points, double sf, double tf);

/// The date functions of promql/functions.go (`dateWrapper`): `name` is one of day_of_month,
/// day_of_week, day_of_year, days_in_month, hour, minute, month, year; `seconds` a Unix time
/// (truncated to whole seconds as Go's time.Unix(int64(v), 0)).
double date_function(const std::string& name, double seconds);

}  // namespace rdmatop::promql
