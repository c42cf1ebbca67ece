// Rates are computed here and nowhere else. Every rate carries an explicit state so that
// outputs show "init", "reset" or "stale" instead of a bogus number.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

namespace rdmatop {

enum class RateState : std::uint8_t {
  init,   ///< first sample: no previous value yet
  ok,     ///< per_second is valid
  reset,  ///< the value went down and no wrap explains it (driver reload, fw reset)
  wrap,   ///< a known-width counter wrapped once; per_second is valid (wrap accounted for)
  stale,  ///< no current value, or time did not advance, or the gap exceeds stale_after
  /// A counter that stops at its width (IB PMA PortCounters) sits at its maximum: the value is
  /// a lower bound, frozen until someone resets it, and no rate can be read from it.
  saturated,
};

struct CounterPoint {
  double value = 0;
  std::chrono::steady_clock::time_point at{};
};

struct Rate {
  RateState state = RateState::init;
  double per_second = 0;  ///< meaningful for ok and wrap only; 0 otherwise
};

/// True when `per_second` is a rate (ok, or wrap: one wrap accounted for).
inline bool rate_has_value(const Rate& rate) {
  return rate.state == RateState::ok || rate.state == RateState::wrap;
}

/// `wrap_modulus`: value at which the counter wraps to 0 (0 = never wraps). A decrease of a
/// wrapping counter counts as a wrap only if the previous value was above half the modulus
/// (a small counter that goes down was reset, not wrapped).
/// `saturation_value`: the value a saturating counter stops at (0 = it does not saturate); a
/// current value at or above it gives `saturated`.
Rate compute_rate(const std::optional<CounterPoint>& prev, const std::optional<CounterPoint>& cur,
                  double wrap_modulus, std::chrono::nanoseconds stale_after,
                  double saturation_value = 0);

const char* to_string(RateState state);

}  // namespace rdmatop
