// Whether the PFC fast path watches a port, how, and if not why: what `rdmatop report` lists
// next to the rules' coverage (absent is not zero: a port without per-priority PFC counters is
// said to be unwatched, never shown as calm).
#pragma once

#include <cstdint>
#include <string>

#include "rules/fast/pfc_fast_detector.h"

namespace rdmatop::fast {

struct FastPathPort {
  std::string device;
  std::uint32_t port = 0;
  std::string netdev;
  PauseMeasure measure = PauseMeasure::none;  ///< none: the fast path cannot run here
  std::size_t counters = 0;                   ///< ethtool strings it reads per poll
  std::string reason;                         ///< why it cannot run (measure none)
};

}  // namespace rdmatop::fast
