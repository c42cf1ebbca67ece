#pragma once
// A cheap clock read for deadlines checked inside busy-poll loops.
#include <chrono>

namespace rdmatop::probes {

/// steady_clock's time, read from CLOCK_MONOTONIC_COARSE: the same timebase as steady_clock
/// (CLOCK_MONOTONIC), at most one scheduler tick behind it. The vDSO always answers the coarse
/// clock, while a precise read is a syscall where the clocksource has no vDSO support (the HPET
/// of an emulated VM: 0.73 us per read against 0.05 us coarse under TCG, measured in the rxe
/// VM). A busy-polling prober that reads the precise clock between polls sees an echo that lands
/// during the read only after it. For timeouts, never for round-trip times.
std::chrono::steady_clock::time_point coarse_now();

}  // namespace rdmatop::probes
