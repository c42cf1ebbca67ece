// Latency histogram with bounded relative error, for probe RTTs.
//
// Log-linear buckets in the spirit of HdrHistogram: bucket i covers [kMin * g^i, kMin * g^(i+1))
// with g = 1.02, and a quantile is reported as the bucket's geometric midpoint, so any quantile
// inside [kMin, kMax] = [100 ns, 100 s] is within sqrt(1.02) - 1 < 1% of the true sample value
// (nearest-rank definition). Values outside the range land in an underflow/overflow bucket
// whose quantiles are clamped to the exact observed min/max. Alongside, a fixed, coarse set of
// Prometheus bucket bounds is counted exactly at record time, for export.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "collector/model/probe_sample.h"

namespace rdmatop::probes {

class LatencyHistogram {
 public:
  static constexpr double kMinSeconds = 100e-9;
  static constexpr double kMaxSeconds = 100.0;
  static constexpr double kGrowth = 1.02;

  /// The exported `le` bounds in seconds (1-2.5-5 steps from 1 us to 10 s), ascending.
  static const std::vector<double>& bucket_upper_seconds();

  void record(std::chrono::nanoseconds rtt);
  /// Adds every value of `other` (same fixed layout, so merging is exact).
  void merge(const LatencyHistogram& other);
  /// Forgets everything (a new window); keeps the allocation.
  void reset();

  std::uint64_t count() const { return count_; }
  double sum_seconds() const { return sum_seconds_; }
  double min_seconds() const { return count_ == 0 ? 0 : min_seconds_; }
  double max_seconds() const { return count_ == 0 ? 0 : max_seconds_; }

  /// Nearest-rank quantile (q in [0, 1]) in seconds; 0 when empty. q <= 0 gives the exact min,
  /// q >= 1 the exact max.
  double quantile(double q) const;
  /// min/p50/p90/p99/p99.9/max; none when empty.
  std::optional<RttSummary> summary() const;
  /// Count of values <= bucket_upper_seconds()[i], cumulative (Prometheus `le` semantics).
  std::vector<std::uint64_t> cumulative_bucket_counts() const;
  /// Adds cumulative_bucket_counts() to `totals` (one per bound), allocating nothing: a stream's
  /// running totals take each window's counts once per tick.
  void add_cumulative_bucket_counts_to(std::vector<std::uint64_t>& totals) const;

 private:
  static std::size_t fine_index(double seconds);
  static double fine_midpoint(std::size_t index);

  std::vector<std::uint64_t> fine_;    ///< [0] underflow, [1..n] log buckets, [n+1] overflow
  std::vector<std::uint64_t> coarse_;  ///< per exported bound, plus one above the last
  /// The lowest and highest fine_ index recorded (none yet: lowest_ > highest_): every count
  /// lies between them, so reset() and quantile() need not look further.
  std::size_t lowest_ = std::numeric_limits<std::size_t>::max();
  std::size_t highest_ = 0;
  std::uint64_t count_ = 0;
  double sum_seconds_ = 0;
  double min_seconds_ = 0;
  double max_seconds_ = 0;
};

}  // namespace rdmatop::probes
