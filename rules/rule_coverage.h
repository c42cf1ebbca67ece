// What coverage says of one rule: could it evaluate on this host, and if not, which input was
// missing. Computed by rules/coverage.h; carried by the published tick and shown by every
// output (kept apart from the computation so that outputs need not see the History).
#pragma once

#include <string>
#include <vector>

namespace rdmatop {

struct RuleCoverage {
  std::string rule;
  std::string group;
  bool lifetime = false;
  bool evaluable = true;
  /// The input selectors that matched nothing, in expression order, as written
  /// (`rdma_pfc_pause_seconds_total{direction="tx"}`); empty when evaluable.
  std::vector<std::string> missing;
  /// Metric names of `missing`, deduplicated, for explaining why they are absent (the selector's
  /// text where it names no single metric: `{__name__=~"a|b"}`).
  std::vector<std::string> missing_metrics;
};

}  // namespace rdmatop
