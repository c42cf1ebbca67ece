// The status a collector recorded for one target of a snapshot, for tests of the collectors.
#pragma once

#include <catch2/catch.hpp>

#include <string>

#include "collector/model/snapshot.h"

namespace rdmatop::test {

/// The snapshot's status of `target`; fails the test when the collector recorded none.
inline const SourceStatus& status_of(const Snapshot& snap, const std::string& target) {
  for (const auto& s : snap.sources) {
    if (s.target == target) return s;
  }
  FAIL("no status for " << target);
  throw;  // unreachable: FAIL throws
}

}  // namespace rdmatop::test
