#include "probes/histogram.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <random>
#include <vector>

namespace rdmatop::probes {
namespace {

using std::chrono::nanoseconds;

/// Nearest-rank quantile of a sorted sample: the definition the histogram approximates.
double exact_quantile(const std::vector<std::int64_t>& sorted_ns, double q) {
  const auto n = static_cast<double>(sorted_ns.size());
  auto rank = static_cast<std::size_t>(std::ceil(q * n));
  rank = std::max<std::size_t>(rank, 1);
  return static_cast<double>(sorted_ns[rank - 1]) * 1e-9;
}

TEST_CASE("histogram quantiles stay within 1% of the exact ones", "[probes][histogram]") {
  std::mt19937_64 rng(20261130);
  struct Case {
    const char* name;
    std::function<double()> draw_ns;
  };
  std::lognormal_distribution<double> lognormal(std::log(50'000.0), 1.0);  // ~50 us median
  std::uniform_real_distribution<double> uniform(200.0, 5e9);              // 200 ns .. 5 s
  std::exponential_distribution<double> exponential(1.0 / 2e6);            // mean 2 ms
  const std::vector<Case> cases = {
      {"lognormal", [&] { return lognormal(rng); }},
      {"uniform", [&] { return uniform(rng); }},
      {"exponential", [&] { return 150.0 + exponential(rng); }},
  };
  for (const auto& c : cases) {
    SECTION(c.name) {
      LatencyHistogram h;
      std::vector<std::int64_t> values;
      for (int i = 0; i < 20000; ++i) {
        const auto v = static_cast<std::int64_t>(c.draw_ns());
        values.push_back(v);
        h.record(nanoseconds(v));
      }
      std::sort(values.begin(), values.end());
      for (double q : {0.01, 0.25, 0.5, 0.9, 0.99, 0.999}) {
        const double exact = exact_quantile(values, q);
        INFO("q=" << q << " exact=" << exact << " got=" << h.quantile(q));
        CHECK(std::abs(h.quantile(q) - exact) <= 0.01 * exact);
      }
      const auto s = h.summary();
      REQUIRE(s.has_value());
      CHECK(s->count == values.size());
      CHECK(s->min == Approx(static_cast<double>(values.front()) * 1e-9));
      CHECK(s->max == Approx(static_cast<double>(values.back()) * 1e-9));
      CHECK(s->p50 <= s->p90);
      CHECK(s->p90 <= s->p99);
      CHECK(s->p99 <= s->p999);
      CHECK(s->p999 <= s->max);
    }
  }
}

TEST_CASE("empty histogram has no summary and zero quantiles", "[probes][histogram]") {
  LatencyHistogram h;
  CHECK_FALSE(h.summary().has_value());
  CHECK(h.quantile(0.5) == 0);
  CHECK(h.count() == 0);
  const auto counts = h.cumulative_bucket_counts();
  CHECK(counts.size() == LatencyHistogram::bucket_upper_seconds().size());
  CHECK(std::all_of(counts.begin(), counts.end(), [](auto c) { return c == 0; }));
}

TEST_CASE("one value is every quantile exactly", "[probes][histogram]") {
  LatencyHistogram h;
  h.record(nanoseconds(123'456));
  const auto s = h.summary();
  REQUIRE(s.has_value());
  for (double v : {s->min, s->p50, s->p90, s->p99, s->p999, s->max}) {
    CHECK(v == Approx(123'456e-9));
  }
  CHECK(h.sum_seconds() == Approx(123'456e-9));
}

TEST_CASE("out-of-range values clamp to the observed extremes", "[probes][histogram]") {
  LatencyHistogram h;
  h.record(nanoseconds(5));                // below 100 ns
  h.record(nanoseconds(-7));               // a clock going backwards counts as 0
  h.record(nanoseconds(300'000'000'000));  // 300 s, above 100 s
  CHECK(h.count() == 3);
  CHECK(h.quantile(0.1) == 0.0);
  CHECK(h.quantile(0.5) < LatencyHistogram::kMinSeconds);
  CHECK(h.quantile(1.0) == Approx(300.0));
  CHECK(h.quantile(0.99) == Approx(300.0));
  // Nothing above 10 s reaches a finite bound; the +Inf bucket is `count`.
  CHECK(h.cumulative_bucket_counts().back() == 2);
}

TEST_CASE("exported buckets are cumulative and exact on the bounds", "[probes][histogram]") {
  const auto& bounds = LatencyHistogram::bucket_upper_seconds();
  REQUIRE(bounds.size() == 22);
  CHECK(bounds.front() == Approx(1e-6));
  CHECK(bounds.back() == Approx(10.0));
  CHECK(std::is_sorted(bounds.begin(), bounds.end()));
  LatencyHistogram h;
  h.record(nanoseconds(1'000));      // exactly le=1e-6
  h.record(nanoseconds(1'001));      // just above: le=2.5e-6
  h.record(nanoseconds(1'000'000));  // exactly 1 ms
  const auto counts = h.cumulative_bucket_counts();
  CHECK(counts[0] == 1);
  CHECK(counts[1] == 2);
  const auto ms = static_cast<std::size_t>(
      std::find_if(bounds.begin(), bounds.end(), [](double b) { return b >= 1e-3 - 1e-12; }) -
      bounds.begin());
  CHECK(counts[ms - 1] == 2);
  CHECK(counts[ms] == 3);
  CHECK(std::is_sorted(counts.begin(), counts.end()));
}

TEST_CASE("merge equals recording everything in one histogram", "[probes][histogram]") {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> d(std::log(1e6), 0.5);
  LatencyHistogram a, b, all;
  for (int i = 0; i < 5000; ++i) {
    const auto v = nanoseconds(static_cast<std::int64_t>(d(rng)));
    (i % 3 == 0 ? a : b).record(v);
    all.record(v);
  }
  a.merge(b);
  CHECK(a.count() == all.count());
  CHECK(a.sum_seconds() == Approx(all.sum_seconds()));
  CHECK(a.summary() == all.summary());
  CHECK(a.cumulative_bucket_counts() == all.cumulative_bucket_counts());
  LatencyHistogram empty;
  empty.merge(a);
  CHECK(empty.summary() == all.summary());
}

TEST_CASE("reset starts a new window", "[probes][histogram]") {
  LatencyHistogram h;
  h.record(nanoseconds(10'000'000));
  h.reset();
  CHECK(h.count() == 0);
  CHECK_FALSE(h.summary().has_value());
  h.record(nanoseconds(20'000));
  CHECK(h.summary()->max == Approx(20e-6));
  CHECK(h.summary()->min == Approx(20e-6));
}

// reset() clears only the buckets between the last window's extremes: counts left behind inside
// the next window's range would shift its quantiles.
TEST_CASE("reset forgets the last window's buckets inside the next window's range",
          "[probes][histogram]") {
  LatencyHistogram h;
  for (int i = 0; i < 5; ++i) h.record(nanoseconds(50'000));
  h.reset();
  for (const std::int64_t ns : {10'000, 100'000, 1'000'000}) h.record(nanoseconds(ns));
  LatencyHistogram fresh;
  for (const std::int64_t ns : {10'000, 100'000, 1'000'000}) fresh.record(nanoseconds(ns));
  CHECK(h.count() == 3);
  CHECK(h.summary() == fresh.summary());
  CHECK(h.quantile(0.5) == Approx(100e-6).epsilon(0.01));  // 50 us if the five were left
  h.reset();
  h.reset();  // an empty window's reset keeps it empty
  CHECK_FALSE(h.summary().has_value());
}

}  // namespace
}  // namespace rdmatop::probes
