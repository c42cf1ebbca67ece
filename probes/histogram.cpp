#include "probes/histogram.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace rdmatop::probes {

namespace {

/// Log buckets between kMinSeconds and kMaxSeconds: ceil(ln(1e9) / ln(1.02)) = 1047.
std::size_t log_bucket_count() {
  static const auto n = static_cast<std::size_t>(
      std::ceil(std::log(LatencyHistogram::kMaxSeconds / LatencyHistogram::kMinSeconds) /
                std::log(LatencyHistogram::kGrowth)));
  return n;
}

}  // namespace

const std::vector<double>& LatencyHistogram::bucket_upper_seconds() {
  static const std::vector<double> bounds = [] {
    // step / 10^k with both operands exact is correctly rounded, so the bounds print as the
    // shortest decimals (2.5e-06, not 2.4999999999999998e-06) in `le` labels and JSON.
    std::vector<double> out;
    for (int exponent = -6; exponent <= 1; ++exponent) {
      double scale = 1;
      for (int i = 0; i < std::abs(exponent); ++i) scale *= 10;
      for (double step : {1.0, 2.5, 5.0}) {
        const double bound = exponent < 0 ? step / scale : step * scale;
        if (bound <= 10.0) out.push_back(bound);
      }
    }
    return out;
  }();
  return bounds;
}

std::size_t LatencyHistogram::fine_index(double seconds) {
  if (seconds < kMinSeconds) return 0;
  const std::size_t n = log_bucket_count();
  if (seconds >= kMaxSeconds) return n + 1;
  const auto i =
      static_cast<std::size_t>(std::floor(std::log(seconds / kMinSeconds) / std::log(kGrowth)));
  return std::min(i, n - 1) + 1;
}

double LatencyHistogram::fine_midpoint(std::size_t index) {
  return kMinSeconds * std::pow(kGrowth, static_cast<double>(index - 1) + 0.5);
}

void LatencyHistogram::record(std::chrono::nanoseconds rtt) {
  const double seconds = static_cast<double>(std::max<std::int64_t>(rtt.count(), 0)) * 1e-9;
  if (fine_.empty()) {
    fine_.assign(log_bucket_count() + 2, 0);
    coarse_.assign(bucket_upper_seconds().size() + 1, 0);
  }
  const std::size_t index = fine_index(seconds);
  ++fine_[index];
  lowest_ = std::min(lowest_, index);
  highest_ = std::max(highest_, index);
  // Compared in integer nanoseconds so a value exactly on a bound counts as <= it.
  static const std::vector<std::int64_t> bounds_ns = [] {
    std::vector<std::int64_t> out;
    for (double b : bucket_upper_seconds()) out.push_back(std::llround(b * 1e9));
    return out;
  }();
  const auto coarse = static_cast<std::size_t>(
      std::lower_bound(bounds_ns.begin(), bounds_ns.end(), rtt.count()) - bounds_ns.begin());
  ++coarse_[coarse];
  min_seconds_ = count_ == 0 ? seconds : std::min(min_seconds_, seconds);
  max_seconds_ = count_ == 0 ? seconds : std::max(max_seconds_, seconds);
  ++count_;
  sum_seconds_ += seconds;
}

void LatencyHistogram::merge(const LatencyHistogram& other) {
  if (other.count_ == 0) return;
  if (fine_.empty()) {
    fine_.assign(other.fine_.size(), 0);
    coarse_.assign(other.coarse_.size(), 0);
  }
  for (std::size_t i = other.lowest_; i <= other.highest_; ++i) fine_[i] += other.fine_[i];
  lowest_ = std::min(lowest_, other.lowest_);
  highest_ = std::max(highest_, other.highest_);
  for (std::size_t i = 0; i < coarse_.size(); ++i) coarse_[i] += other.coarse_[i];
  min_seconds_ = count_ == 0 ? other.min_seconds_ : std::min(min_seconds_, other.min_seconds_);
  max_seconds_ = count_ == 0 ? other.max_seconds_ : std::max(max_seconds_, other.max_seconds_);
  count_ += other.count_;
  sum_seconds_ += other.sum_seconds_;
}

void LatencyHistogram::reset() {
  if (count_ == 0) return;
  // Only the buckets between the window's extremes can be non-zero: a window of a few probes
  // clears a few words, not the whole 8 KB of buckets, per stream and tick.
  std::fill(fine_.begin() + static_cast<std::ptrdiff_t>(lowest_),
            fine_.begin() + static_cast<std::ptrdiff_t>(highest_) + 1, 0);
  std::fill(coarse_.begin(), coarse_.end(), 0);
  lowest_ = std::numeric_limits<std::size_t>::max();
  highest_ = 0;
  count_ = 0;
  sum_seconds_ = 0;
  min_seconds_ = max_seconds_ = 0;
}

double LatencyHistogram::quantile(double q) const {
  if (count_ == 0) return 0;
  if (q <= 0) return min_seconds_;
  if (q >= 1) return max_seconds_;
  // Nearest rank: the smallest value with at least ceil(q * n) values at or below it.
  const auto rank = std::max<std::uint64_t>(
      1, static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(count_))));
  std::uint64_t seen = 0;
  for (std::size_t i = lowest_; i <= highest_; ++i) {  // no count outside them
    seen += fine_[i];
    if (seen < rank) continue;
    if (i == 0) return min_seconds_;
    if (i == fine_.size() - 1) return max_seconds_;
    return std::clamp(fine_midpoint(i), min_seconds_, max_seconds_);
  }
  return max_seconds_;
}

std::optional<RttSummary> LatencyHistogram::summary() const {
  if (count_ == 0) return std::nullopt;
  RttSummary s;
  s.count = count_;
  s.min = min_seconds_;
  s.p50 = quantile(0.5);
  s.p90 = quantile(0.9);
  s.p99 = quantile(0.99);
  s.p999 = quantile(0.999);
  s.max = max_seconds_;
  return s;
}

std::vector<std::uint64_t> LatencyHistogram::cumulative_bucket_counts() const {
  std::vector<std::uint64_t> out(bucket_upper_seconds().size(), 0);
  add_cumulative_bucket_counts_to(out);
  return out;
}

void LatencyHistogram::add_cumulative_bucket_counts_to(std::vector<std::uint64_t>& totals) const {
  std::uint64_t running = 0;
  for (std::size_t i = 0; i < totals.size() && i < coarse_.size(); ++i) {
    running += coarse_[i];
    totals[i] += running;
  }
}

}  // namespace rdmatop::probes
