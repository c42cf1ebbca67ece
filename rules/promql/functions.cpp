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
      // prometheus/promql/parser/functions.go (v2.42.0) `Functions`, every one.
      {"abs", {V}, 0, V},
      {"absent", {V}, 0, V},
      {"absent_over_time", {M}, 0, V},
      {"acos", {V}, 0, V},
      {"acosh", {V}, 0, V},
      {"asin", {V}, 0, V},
      {"asinh", {V}, 0, V},
      {"atan", {V}, 0, V},
      {"atanh", {V}, 0, V},
      {"avg_over_time", {M}, 0, V},
      {"ceil", {V}, 0, V},
      {"changes", {M}, 0, V},
      {"clamp", {V, S, S}, 0, V},
      {"clamp_max", {V, S}, 0, V},
      {"clamp_min", {V, S}, 0, V},
      {"cos", {V}, 0, V},
      {"cosh", {V}, 0, V},
      {"count_over_time", {M}, 0, V},
      {"day_of_month", {V}, 1, V},
      {"day_of_week", {V}, 1, V},
      {"day_of_year", {V}, 1, V},
      {"days_in_month", {V}, 1, V},
      {"deg", {V}, 0, V},
      {"delta", {M}, 0, V},
      {"deriv", {M}, 0, V},
      {"exp", {V}, 0, V},
      {"floor", {V}, 0, V},
      {"histogram_count", {V}, 0, V},
      {"histogram_fraction", {S, S, V}, 0, V},
      {"histogram_quantile", {S, V}, 0, V},
      {"histogram_sum", {V}, 0, V},
      {"holt_winters", {M, S, S}, 0, V},
      {"hour", {V}, 1, V},
      {"idelta", {M}, 0, V},
      {"increase", {M}, 0, V},
      {"irate", {M}, 0, V},
      {"label_join", {V, Str, Str, Str}, 0, V, true},
      {"label_replace", {V, Str, Str, Str, Str}, 0, V},
      {"last_over_time", {M}, 0, V},
      {"ln", {V}, 0, V},
      {"log10", {V}, 0, V},
      {"log2", {V}, 0, V},
      {"max_over_time", {M}, 0, V},
      {"min_over_time", {M}, 0, V},
      {"minute", {V}, 1, V},
      {"month", {V}, 1, V},
      {"pi", {}, 0, S},
      {"predict_linear", {M, S}, 0, V},
      {"present_over_time", {M}, 0, V},
      {"quantile_over_time", {S, M}, 0, V},
      {"rad", {V}, 0, V},
      {"rate", {M}, 0, V},
      {"resets", {M}, 0, V},
      {"round", {V, S}, 1, V},
      {"scalar", {V}, 0, S},
      {"sgn", {V}, 0, V},
      {"sin", {V}, 0, V},
      {"sinh", {V}, 0, V},
      {"sort", {V}, 0, V},
      {"sort_desc", {V}, 0, V},
      {"sqrt", {V}, 0, V},
      {"stddev_over_time", {M}, 0, V},
      {"stdvar_over_time", {M}, 0, V},
      {"sum_over_time", {M}, 0, V},
      {"tan", {V}, 0, V},
      {"tanh", {V}, 0, V},
      {"time", {}, 0, S},
      {"timestamp", {V}, 0, V},
      {"vector", {S}, 0, V},
      {"year", {V}, 1, V},
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
  const double change =
      is_counter ? counter_change(points.begin(), points.end(), first.v, last.v) : last.v - first.v;
  const RateSamples window{first, last, points.size(), change};
  return extrapolate(window, range_start, range_end, is_counter, is_rate);
}

double extrapolate(const RateSamples& window, Timestamp range_start, Timestamp range_end,
                   bool is_counter, bool is_rate) {
  const Point& first = window.first;
  const Point& last = window.last;
  const double result = window.change;
  double to_start = static_cast<double>(first.t - range_start) / 1000.0;
  const double to_end = static_cast<double>(range_end - last.t) / 1000.0;
  const double sampled = static_cast<double>(last.t - first.t) / 1000.0;
  const double avg_interval = sampled / static_cast<double>(window.samples - 1);
  if (is_counter && result > 0 && first.v >= 0) {
    // A counter cannot go below zero: do not extrapolate past the point where it was 0.
    const double to_zero = sampled * (first.v / result);
    if (to_zero < to_start) to_start = to_zero;
  }
  const double threshold = avg_interval * 1.1;
  double interval = sampled;
  interval += to_start < threshold ? to_start : avg_interval / 2;
  interval += to_end < threshold ? to_end : avg_interval / 2;
  // One factor, then one multiplication, as v2.42.0 does: the last bit depends on it.
  double factor = interval / sampled;
  if (is_rate) factor /= static_cast<double>(range_end - range_start) / 1000.0;
  return result * factor;
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
  if (values.empty() || std::isnan(q)) return kNaN;
  if (q < 0) return -std::numeric_limits<double>::infinity();
  if (q > 1) return std::numeric_limits<double>::infinity();
  // vectorByValueHeap.Less: NaN sorts first.
  std::sort(values.begin(), values.end(), [](double a, double b) {
    if (std::isnan(a)) return !std::isnan(b);
    return a < b;
  });
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
    double c = 0;
    for (const Point& p : points) kahan_sum_inc(p.v, sum, c);
    return std::isinf(sum) ? sum : sum + c;
  }
  if (name == "avg_over_time") {
    // funcAvgOverTime (v2.42.0): an incremental, compensated mean, which neither overflows
    // near the float limits nor turns an infinite mean into NaN.
    double mean = 0;
    double count = 0;
    double c = 0;
    for (const Point& p : points) {
      ++count;
      if (std::isinf(mean)) {
        if (std::isinf(p.v) && (mean > 0) == (p.v > 0)) continue;
        if (!std::isinf(p.v) && !std::isnan(p.v)) continue;
      }
      kahan_sum_inc(p.v / count - mean / count, mean, c);
    }
    return std::isinf(mean) ? mean : mean + c;
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
    // funcStddevOverTime / funcStdvarOverTime (v2.42.0): Welford with compensated sums.
    double count = 0;
    double mean = 0;
    double c_mean = 0;
    double aux = 0;
    double c_aux = 0;
    for (const Point& p : points) {
      ++count;
      const double delta = p.v - (mean + c_mean);
      kahan_sum_inc(delta / count, mean, c_mean);
      kahan_sum_inc(delta * (p.v - (mean + c_mean)), aux, c_aux);
    }
    const double var = (aux + c_aux) / count;
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

void kahan_sum_inc(double inc, double& sum, double& c) {
  const double t = sum + inc;
  // Neumaier's improvement: swap when the next term is larger than the sum.
  if (std::fabs(sum) >= std::fabs(inc)) {
    c += (sum - t) + inc;
  } else {
    c += (inc - t) + sum;
  }
  sum = t;
}

double bucket_quantile(double q, std::vector<Bucket> buckets) {
  if (std::isnan(q)) return kNaN;
  if (q < 0) return -std::numeric_limits<double>::infinity();
  if (q > 1) return std::numeric_limits<double>::infinity();
  if (buckets.empty()) return kNaN;
  std::sort(buckets.begin(), buckets.end(),
            [](const Bucket& a, const Bucket& b) { return a.upper_bound < b.upper_bound; });
  if (!std::isinf(buckets.back().upper_bound) || buckets.back().upper_bound < 0) return kNaN;
  // coalesceBuckets: equal upper bounds add up.
  std::vector<Bucket> merged;
  for (const Bucket& b : buckets) {
    if (!merged.empty() && merged.back().upper_bound == b.upper_bound) {
      merged.back().count += b.count;
    } else {
      merged.push_back(b);
    }
  }
  // ensureMonotonic
  double max = merged.front().count;
  for (std::size_t i = 1; i < merged.size(); ++i) {
    if (merged[i].count > max) {
      max = merged[i].count;
    } else if (merged[i].count < max) {
      merged[i].count = max;
    }
  }
  if (merged.size() < 2) return kNaN;
  const double observations = merged.back().count;
  if (observations == 0) return kNaN;
  double rank = q * observations;
  // sort.Search over all buckets but the last.
  std::size_t b = 0;
  while (b < merged.size() - 1 && !(merged[b].count >= rank)) ++b;
  if (b == merged.size() - 1) return merged[merged.size() - 2].upper_bound;
  if (b == 0 && merged[0].upper_bound <= 0) return merged[0].upper_bound;
  double bucket_start = 0;
  const double bucket_end = merged[b].upper_bound;
  double count = merged[b].count;
  if (b > 0) {
    bucket_start = merged[b - 1].upper_bound;
    count -= merged[b - 1].count;
    rank -= merged[b - 1].count;
  }
  return bucket_start + (bucket_end - bucket_start) * (rank / count);
}

std::pair<double, double> linear_regression(const std::vector<Point>& points,
                                            Timestamp intercept_time) {
  double n = 0;
  double sum_x = 0;
  double c_x = 0;
  double sum_y = 0;
  double c_y = 0;
  double sum_xy = 0;
  double c_xy = 0;
  double sum_x2 = 0;
  double c_x2 = 0;
  const double init_y = points.front().v;
  bool const_y = true;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Point& p = points[i];
    if (const_y && i > 0 && p.v != init_y) const_y = false;
    n += 1.0;
    const double x = static_cast<double>(p.t - intercept_time) / 1e3;
    kahan_sum_inc(x, sum_x, c_x);
    kahan_sum_inc(p.v, sum_y, c_y);
    kahan_sum_inc(x * p.v, sum_xy, c_xy);
    kahan_sum_inc(x * x, sum_x2, c_x2);
  }
  if (const_y) {
    if (std::isinf(init_y)) return {kNaN, kNaN};
    return {0, init_y};
  }
  sum_x += c_x;
  sum_y += c_y;
  sum_xy += c_xy;
  sum_x2 += c_x2;
  const double cov_xy = sum_xy - sum_x * sum_y / n;
  const double var_x = sum_x2 - sum_x * sum_x / n;
  const double slope = cov_xy / var_x;
  const double intercept = sum_y / n - slope * sum_x / n;
  return {slope, intercept};
}

std::optional<double> holt_winters(const std::vector<Point>& points, double sf, double tf) {
  if (points.size() < 2) return std::nullopt;
  double s0 = 0;
  double s1 = points[0].v;
  double b = points[1].v - points[0].v;
  for (std::size_t i = 1; i < points.size(); ++i) {
    const double x = sf * points[i].v;
    // calcTrendValue(i-1, ...): the first step keeps the initial trend.
    if (i > 1) b = tf * (s1 - s0) + (1 - tf) * b;
    const double y = (1 - sf) * (s1 + b);
    s0 = s1;
    s1 = x + y;
  }
  return s1;
}

namespace {

// Days since 1970-01-01 -> civil date (H. Hinnant, "chrono-compatible low-level date
// algorithms", civil_from_days), the proleptic Gregorian calendar Go's time package uses.
void civil_from_days(std::int64_t z, std::int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = static_cast<std::int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  if (m <= 2) ++y;
}

bool is_leap(std::int64_t y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

}  // namespace

double date_function(const std::string& name, double seconds) {
  // Go's int64(v) of a float truncates toward zero.
  const auto secs = static_cast<std::int64_t>(seconds);
  std::int64_t days = secs / 86400;
  std::int64_t rem = secs % 86400;
  if (rem < 0) {
    rem += 86400;
    --days;
  }
  std::int64_t y = 0;
  unsigned m = 0;
  unsigned d = 0;
  civil_from_days(days, y, m, d);
  static constexpr int kDaysBefore[] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
  static constexpr int kDaysIn[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (name == "year") return static_cast<double>(y);
  if (name == "month") return m;
  if (name == "day_of_month") return d;
  if (name == "hour") return static_cast<double>(rem / 3600);
  if (name == "minute") return static_cast<double>(rem % 3600 / 60);
  if (name == "day_of_week") {
    const std::int64_t w = (days % 7 + 7 + 4) % 7;  // 1970-01-01 was a Thursday
    return static_cast<double>(w);
  }
  if (name == "day_of_year") {
    return kDaysBefore[m - 1] + static_cast<int>(d) + (m > 2 && is_leap(y) ? 1 : 0);
  }
  if (name == "days_in_month") return kDaysIn[m - 1] + (m == 2 && is_leap(y) ? 1 : 0);
  return kNaN;
}

}  // namespace rdmatop::promql
