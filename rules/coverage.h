// Coverage: could each rule run on this host? A rule over a series that no driver here exposes
// stays silent, and silence must not read as health. For every alert rule this works out which
// input selectors its expression needs (both sides of `and` and of arithmetic, either side of
// `or`, the left side of `unless`, nothing inside `absent()`), and which of them match no
// current series: the rule is then "not evaluable" and the report says which input is missing.
#pragma once

#include <string>
#include <vector>

#include "rules/history.h"
#include "rules/rule_coverage.h"
#include "rules/rule_file.h"

namespace rdmatop {

/// Coverage of every alert rule of `live` and `lifetime` at `ts` (a selector is present when a
/// series it matches has a non-stale sample within the 5-minute lookback).
std::vector<RuleCoverage> rule_coverage(const std::vector<RuleGroup>& live,
                                        const std::vector<RuleGroup>& lifetime,
                                        const History& history, promql::Timestamp ts);

/// The needed-but-missing selectors of one expression (exposed for tests).
std::vector<const promql::Expr*> missing_inputs(const promql::Expr& expr, const History& history,
                                                promql::Timestamp ts);

}  // namespace rdmatop
