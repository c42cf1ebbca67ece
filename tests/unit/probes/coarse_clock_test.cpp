#include <catch2/catch.hpp>

#include "probes/coarse_clock.h"

using rdmatop::probes::coarse_now;

TEST_CASE("coarse_now is on steady_clock's timebase, never ahead of it") {
  // Deadlines made from steady_clock::now() are compared with coarse_now(): a different
  // timebase (realtime, boot time after a suspend) would make timeouts fire early or never.
  const auto coarse = coarse_now();
  const auto precise = std::chrono::steady_clock::now();
  CHECK(coarse <= precise);
  CHECK(precise - coarse < std::chrono::seconds(1));
}
