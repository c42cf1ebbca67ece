// PromQL functions: the signature table the parser type-checks against, and the pure range
// computations (rate extrapolation, irate, *_over_time) the evaluator applies per series.
#pragma once

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

/// irate / idelta from the last two points (promql/functions.go `instantValue`).
std::optional<double> instant_value(const std::vector<Point>& points, bool is_rate);

/// resets / changes / *_over_time over the points of one window. `name` is the function name;
/// `param` is quantile_over_time's quantile. nullopt when the function yields no sample.
std::optional<double> over_time(const std::string& name, const std::vector<Point>& points,
                                double param);

/// The Prometheus quantile estimate over unsorted values (promql/quantile.go `quantile`).
double quantile(double q, std::vector<double> values);

}  // namespace rdmatop::promql
