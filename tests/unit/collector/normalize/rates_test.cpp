#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "collector/normalize/rates.h"

using rdmatop::compute_rate;
using rdmatop::CounterPoint;
using rdmatop::Rate;
using rdmatop::RateState;

namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;
using std::chrono::seconds;

const std::chrono::steady_clock::time_point t0{seconds(1000)};
constexpr double kTwoTo32 = 4294967296.0;  // 2^32
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

std::optional<CounterPoint> at(double value, nanoseconds offset) {
  return CounterPoint{value, t0 + offset};
}

struct Case {
  const char* what;
  std::optional<CounterPoint> prev;
  std::optional<CounterPoint> cur;
  double modulus;
  nanoseconds stale_after;
  RateState state;
  double per_second;
};

}  // namespace

TEST_CASE("compute_rate: every state and edge", "[rates]") {
  const nanoseconds ten_s = seconds(10);
  const Case cases[] = {
      // init / stale from presence
      {"no previous value", std::nullopt, at(5, seconds(1)), 0, ten_s, RateState::init, 0},
      {"no current value", at(5, seconds(0)), std::nullopt, 0, ten_s, RateState::stale, 0},
      {"neither value", std::nullopt, std::nullopt, 0, ten_s, RateState::stale, 0},
      {"current NaN", at(5, seconds(0)), at(kNaN, seconds(1)), 0, ten_s, RateState::stale, 0},
      {"current infinite", at(5, seconds(0)), at(kInf, seconds(1)), 0, ten_s, RateState::stale, 0},
      {"previous NaN", at(kNaN, seconds(0)), at(5, seconds(1)), 0, ten_s, RateState::init, 0},
      // time
      {"dt = 0", at(5, seconds(1)), at(9, seconds(1)), 0, ten_s, RateState::stale, 0},
      {"dt < 0", at(5, seconds(2)), at(9, seconds(1)), 0, ten_s, RateState::stale, 0},
      {"gap > stale_after", at(5, seconds(0)), at(9, seconds(11)), 0, ten_s, RateState::stale, 0},
      {"gap == stale_after", at(0, seconds(0)), at(20, seconds(10)), 0, ten_s, RateState::ok, 2},
      // ok
      {"increase", at(100, seconds(0)), at(350, milliseconds(2500)), 0, ten_s, RateState::ok, 100},
      {"unchanged", at(7, seconds(0)), at(7, seconds(1)), 0, ten_s, RateState::ok, 0},
      {"increase across half modulus", at(kTwoTo32 / 2 - 1, seconds(0)),
       at(kTwoTo32 / 2 + 1, seconds(1)), kTwoTo32, ten_s, RateState::ok, 2},
      // reset
      {"decrease, no modulus", at(100, seconds(0)), at(4, seconds(1)), 0, ten_s, RateState::reset,
       0},
      {"decrease, small previous (32-bit)", at(1000, seconds(0)), at(4, seconds(1)), kTwoTo32,
       ten_s, RateState::reset, 0},
      {"decrease, previous exactly half", at(kTwoTo32 / 2, seconds(0)), at(0, seconds(1)), kTwoTo32,
       ten_s, RateState::reset, 0},
      {"decrease, negative modulus", at(kTwoTo32 - 1, seconds(0)), at(0, seconds(1)), -kTwoTo32,
       ten_s, RateState::reset, 0},
      {"decrease, NaN modulus", at(kTwoTo32 - 1, seconds(0)), at(0, seconds(1)), kNaN, ten_s,
       RateState::reset, 0},
      {"decrease larger than the modulus", at(250, seconds(0)), at(10, seconds(1)), 100, ten_s,
       RateState::reset, 0},
      // wrap: exact modulus arithmetic
      {"32-bit wrap", at(kTwoTo32 - 10, seconds(0)), at(5, seconds(1)), kTwoTo32, ten_s,
       RateState::wrap, 15},
      {"32-bit wrap, previous just above half", at(kTwoTo32 / 2 + 1, seconds(0)), at(0, seconds(1)),
       kTwoTo32, ten_s, RateState::wrap, kTwoTo32 / 2 - 1},
      {"32-bit wrap to exactly 0 over 2 s", at(kTwoTo32 - 8, seconds(0)), at(0, seconds(2)),
       kTwoTo32, ten_s, RateState::wrap, 4},
      {"32-bit wrap in canonical units (x4)", at(4 * kTwoTo32 - 8, seconds(0)), at(4, seconds(1)),
       4 * kTwoTo32, ten_s, RateState::wrap, 12},
      {"sum of two 32-bit counters above the modulus", at(kTwoTo32 + 100, seconds(0)),
       at(150, seconds(1)), kTwoTo32, ten_s, RateState::wrap, 50},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    const Rate rate = compute_rate(c.prev, c.cur, c.modulus, c.stale_after);
    CHECK(rate.state == c.state);
    CHECK(rate.per_second == Approx(c.per_second).margin(1e-9));
    CHECK(rate.per_second >= 0);
    CHECK(std::isfinite(rate.per_second));
  }
}

TEST_CASE("compute_rate: 32-bit wrap is exact to the last count", "[rates]") {
  // 0xFFFFFFF0 -> 0x00000010 is 0x20 counts, not 0x20 +- rounding.
  const Rate rate =
      compute_rate(at(4294967280.0, seconds(0)), at(16, seconds(1)), kTwoTo32, seconds(10));
  REQUIRE(rate.state == RateState::wrap);
  CHECK(rate.per_second == 32.0);
}

TEST_CASE("compute_rate never returns a negative rate", "[rates]") {
  const double values[] = {0, 1, 1e3, kTwoTo32 / 2, kTwoTo32 - 1, kTwoTo32, 1e15, 1.8e19};
  const double moduli[] = {0, 256, 65536, kTwoTo32, 4 * kTwoTo32};
  for (const double prev : values) {
    for (const double cur : values) {
      for (const double modulus : moduli) {
        const Rate rate =
            compute_rate(at(prev, seconds(0)), at(cur, seconds(1)), modulus, seconds(10));
        INFO("prev " << prev << " cur " << cur << " modulus " << modulus);
        CHECK(rate.per_second >= 0);
        if (rate.state != RateState::ok && rate.state != RateState::wrap) {
          CHECK(rate.per_second == 0);
        }
      }
    }
  }
}

TEST_CASE("to_string(RateState) names every state", "[rates]") {
  CHECK(std::string(to_string(RateState::init)) == "init");
  CHECK(std::string(to_string(RateState::ok)) == "ok");
  CHECK(std::string(to_string(RateState::reset)) == "reset");
  CHECK(std::string(to_string(RateState::wrap)) == "wrap");
  CHECK(std::string(to_string(RateState::stale)) == "stale");
}

TEST_CASE("compute_rate: a saturating counter at its maximum is saturated, never 0/s", "[rates]") {
  // IB PMA link_downed is 8 bits wide and stops at 255 (drivers/infiniband/core/sysfs.c).
  const Rate stuck = compute_rate(at(255, seconds(0)), at(255, seconds(1)), 0, seconds(10), 255);
  CHECK(stuck.state == RateState::saturated);
  CHECK(stuck.per_second == 0);
  // Already saturated on the first sample: there is no rate to wait for.
  CHECK(compute_rate(std::nullopt, at(255, seconds(1)), 0, seconds(10), 255).state ==
        RateState::saturated);
  // Below the ceiling the counter is an ordinary counter.
  const Rate rising = compute_rate(at(250, seconds(0)), at(254, seconds(1)), 0, seconds(10), 255);
  CHECK(rising.state == RateState::ok);
  CHECK(rising.per_second == 4);
  CHECK(std::string(rdmatop::to_string(RateState::saturated)) == "saturated");
}
