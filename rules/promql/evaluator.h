// PromQL evaluation of one expression at one instant over a Queryable, with Prometheus 2.x
// semantics (prometheus/promql/engine.go): 5m lookback and staleness markers for instant
// selectors, closed [t-range, t] windows for range selectors, `__name__` dropped by functions
// and arithmetic, one-to-one / many-to-one vector matching, set operators and aggregations.
#pragma once

#include "collector/model/result.h"
#include "rules/promql/ast.h"
#include "rules/promql/storage.h"

namespace rdmatop::promql {

struct EvalOptions {
  Timestamp lookback_ms = kLookbackDeltaMs;
  /// Step of subqueries written without one (`x[10m:]`): the rule group's interval.
  Timestamp default_step_ms = 60 * 1000;
};

/// Evaluates `expr` at `ts` (milliseconds). Errors: many-to-many matching, duplicate output
/// label sets, and the other run-time errors Prometheus reports.
Result<Value> evaluate(const Expr& expr, const Queryable& storage, Timestamp ts,
                       const EvalOptions& options = {});

}  // namespace rdmatop::promql
