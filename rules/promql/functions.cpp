#include "rules/promql/functions.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace rdmatop::promql {

namespace {
constexpr auto S = ValueType::scalar;
constexpr auto V = ValueType::vector;
constexpr auto M = ValueType::matrix;
constexpr auto Str = ValueType::string;
}  // namespace

const std::vector<FunctionSpec>& all_functions() {
  static const std::vector<FunctionSpec> kFunctions = {
      {"abs", {V}, 0, V},
      {"absent", {V}, 0, V},
      {"absent_over_time", {M}, 0, V},
      {"avg_over_time", {M}, 0, V},
      {"ceil", {V}, 0, V},
      {"changes", {M}, 0, V},
      {"clamp", {V, S, S}, 0, V},
      {"clamp_max", {V, S}, 0, V},
      {"clamp_min", {V, S}, 0, V},
      {"count_over_time", {M}, 0, V},
      {"delta", {M}, 0, V},
      {"exp", {V}, 0, V},
      {"floor", {V}, 0, V},
      {"idelta", {M}, 0, V},
      {"increase", {M}, 0, V},
      {"irate", {M}, 0, V},
      {"label_replace", {V, Str, Str, Str, Str}, 0, V},
      {"last_over_time", {M}, 0, V},
      {"ln", {V}, 0, V},
      {"log10", {V}, 0, V},
      {"log2", {V}, 0, V},
      {"max_over_time", {M}, 0, V},
      {"min_over_time", {M}, 0, V},
      {"present_over_time", {M}, 0, V},
      {"quantile_over_time", {S, M}, 0, V},
      {"rate", {M}, 0, V},
      {"resets", {M}, 0, V},
      {"round", {V, S}, 1, V},
      {"scalar", {V}, 0, S},
      {"sgn", {V}, 0, V},
      {"sort", {V}, 0, V},
      {"sort_desc", {V}, 0, V},
      {"sqrt", {V}, 0, V},
      {"stddev_over_time", {M}, 0, V},
      {"stdvar_over_time", {M}, 0, V},
      {"sum_over_time", {M}, 0, V},
      {"time", {}, 0, S},
      {"vector", {S}, 0, V},
  };
  return kFunctions;
}

const FunctionSpec* find_function(const std::string& name) {
  for (const auto& f : all_functions()) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

std::optional<double> extrapolated_rate(const std::vector<Point>& points, Timestamp range_start,
                                        Timestamp range_end, bool is_counter, bool is_rate) {
  if (points.size() < 2) return std::nullopt;
  const Point& first = points.front();
  const Point& last = points.back();
  double result = last.v - first.v;
  if (is_counter) {
    double prev = 0;
    for (const Point& p : points) {
      if (p.v < prev) result += prev;  // a reset: the counter restarted from zero
      prev = p.v;
    }
  }
  double to_start = static_cast<double>(first.t - range_start) / 1000.0;
  const double to_end = static_cast<double>(range_end - last.t) / 1000.0;
  const double sampled = static_cast<double>(last.t - first.t) / 1000.0;
  const double avg_interval = sampled / static_cast<double>(points.size() - 1);
  if (is_counter && result > 0 && first.v >= 0) {
    // A counter cannot go below zero: do not extrapolate past the point where it was 0.
    const double to_zero = sampled * (first.v / result);
    if (to_zero < to_start) to_start = to_zero;
  }
  const double threshold = avg_interval * 1.1;
  double interval = sampled;
  interval += to_start < threshold ? to_start : avg_interval / 2;
  interval += to_end < threshold ? to_end : avg_interval / 2;
  result = result * (interval / sampled);
  if (is_rate) result /= static_cast<double>(range_end - range_start) / 1000.0;
  return result;
}

std::optional<double> instant_value(const std::vector<Point>& points, bool is_rate) {
  if (points.size() < 2) return std::nullopt;
  const Point& last = points[points.size() - 1];
  const Point& prev = points[points.size() - 2];
  double result = 0;
  if (is_rate && last.v < prev.v) {
    result = last.v;  // counter reset
  } else {
    result = last.v - prev.v;
  }
  const Timestamp interval = last.t - prev.t;
  if (interval == 0) return std::nullopt;
  if (is_rate) result /= static_cast<double>(interval) / 1000.0;
  return result;
}

double quantile(double q, std::vector<double> values) {
  if (values.empty()) return kNaN;
  if (q < 0) return -std::numeric_limits<double>::infinity();
  if (q > 1) return std::numeric_limits<double>::infinity();
  std::sort(values.begin(), values.end());
  const double n = static_cast<double>(values.size());
  const double rank = q * (n - 1);
  const double lower = std::max(0.0, std::floor(rank));
  const double upper = std::min(n - 1, lower + 1);
  const double weight = rank - std::floor(rank);
  return values[static_cast<std::size_t>(lower)] * (1 - weight) +
         values[static_cast<std::size_t>(upper)] * weight;
}

std::optional<double> over_time(const std::string& name, const std::vector<Point>& points,
                                double param) {
  if (points.empty()) return std::nullopt;
  if (name == "resets" || name == "changes") {
    double count = 0;
    double prev = points.front().v;
    for (std::size_t i = 1; i < points.size(); ++i) {
      const double cur = points[i].v;
      if (name == "resets") {
        if (cur < prev) ++count;
      } else if (cur != prev && !(std::isnan(cur) && std::isnan(prev))) {
        ++count;
      }
      prev = cur;
    }
    return count;
  }
  if (name == "count_over_time") return static_cast<double>(points.size());
  if (name == "present_over_time") return 1.0;
  if (name == "last_over_time") return points.back().v;
  if (name == "sum_over_time") {
    double sum = 0;
    for (const Point& p : points) sum += p.v;
    return sum;
  }
  if (name == "avg_over_time") {
    double sum = 0;
    for (const Point& p : points) sum += p.v;
    return sum / static_cast<double>(points.size());
  }
  if (name == "min_over_time" || name == "max_over_time") {
    const bool is_max = name == "max_over_time";
    double out = points.front().v;
    for (const Point& p : points) {
      // NaN loses to any number, as in Prometheus.
      if ((is_max ? p.v > out : p.v < out) || std::isnan(out)) out = p.v;
    }
    return out;
  }
  if (name == "stddev_over_time" || name == "stdvar_over_time") {
    double mean = 0;
    double m2 = 0;
    double n = 0;
    for (const Point& p : points) {
      ++n;
      const double delta = p.v - mean;
      mean += delta / n;
      m2 += delta * (p.v - mean);
    }
    const double var = m2 / n;
    return name == "stdvar_over_time" ? var : std::sqrt(var);
  }
  if (name == "quantile_over_time") {
    std::vector<double> values;
    values.reserve(points.size());
    for (const Point& p : points) values.push_back(p.v);
    return quantile(param, std::move(values));
  }
  return std::nullopt;
}

}  // namespace rdmatop::promql
