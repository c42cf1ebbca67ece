#include "collector/normalize/rates.h"

#include <cmath>

namespace rdmatop {

namespace {

Rate with_state(RateState state) {
  return Rate{state, 0};
}

}  // namespace

Rate compute_rate(const std::optional<CounterPoint>& prev, const std::optional<CounterPoint>& cur,
                  double wrap_modulus, std::chrono::nanoseconds stale_after,
                  double saturation_value) {
  // A missing or non-finite current value means the counter was not read this tick.
  if (!cur || !std::isfinite(cur->value)) return with_state(RateState::stale);
  if (saturation_value > 0 && cur->value >= saturation_value) {
    return with_state(RateState::saturated);
  }
  if (!prev || !std::isfinite(prev->value)) return with_state(RateState::init);

  const std::chrono::nanoseconds gap = cur->at - prev->at;
  if (gap <= std::chrono::nanoseconds::zero() || gap > stale_after) {
    return with_state(RateState::stale);
  }
  const double seconds = std::chrono::duration<double>(gap).count();

  if (cur->value >= prev->value) return Rate{RateState::ok, (cur->value - prev->value) / seconds};

  // The value went down. Only a counter of known width whose previous value was in the upper
  // half of its range can have wrapped (docs/domain.md#wrap-and-reset: > 2^31 for 32-bit); a small
  // value going down was reset (driver reload, firmware reset) and must not become a rate.
  const bool can_wrap = std::isfinite(wrap_modulus) && wrap_modulus > 0;
  if (can_wrap && prev->value > wrap_modulus / 2) {
    const double delta = cur->value + wrap_modulus - prev->value;
    if (delta >= 0) return Rate{RateState::wrap, delta / seconds};
  }
  return with_state(RateState::reset);
}

const char* to_string(RateState state) {
  switch (state) {
    case RateState::init:
      return "init";
    case RateState::ok:
      return "ok";
    case RateState::reset:
      return "reset";
    case RateState::wrap:
      return "wrap";
    case RateState::stale:
      return "stale";
    case RateState::saturated:
      return "saturated";
  }
  return "unknown";
}

}  // namespace rdmatop
