// PromQL evaluation of one expression at one instant over a Queryable, with Prometheus 2.x
// semantics (prometheus/promql/engine.go): 5m lookback and staleness markers for instant
// selectors, closed [t-range, t] windows for range selectors, `__name__` dropped by functions
// and arithmetic, one-to-one / many-to-one vector matching, set operators and aggregations.
#pragma once

#include <cerrno>
#include <cstdint>

#include "collector/model/result.h"
#include "rules/promql/ast.h"
#include "rules/promql/storage.h"

namespace rdmatop::promql {

/// The default sample budget of one evaluation: Prometheus's --query.max-samples default
/// (prometheus/cmd/prometheus/main.go), about 16 bytes a sample, so under a GiB in all.
inline constexpr std::uint64_t kDefaultMaxSamples = 50'000'000;

/// The error code of an evaluation that exceeded its sample budget (see EvalOptions).
inline constexpr int kSampleBudgetExceeded = E2BIG;

struct EvalOptions {
  Timestamp lookback_ms = kLookbackDeltaMs;
  /// Step of subqueries written without one (`x[10m:]`): the rule group's interval.
  Timestamp default_step_ms = 60 * 1000;
  /// Samples one evaluation may load, counted as they are selected (instant and range
  /// selectors, every subquery step's results) plus one per subquery step, so that neither a
  /// long range nor a subquery of billions of empty steps can take all memory or time.
  /// Unlike Prometheus, which counts the samples held at once, this counts every sample
  /// loaded: simpler, and stricter.
  std::uint64_t max_samples = kDefaultMaxSamples;
};

/// Evaluates `expr` at `ts` (milliseconds). Errors: many-to-many matching, duplicate output
/// label sets, and the other run-time errors Prometheus reports; a sample budget exceeded
/// has code kSampleBudgetExceeded.
Result<Value> evaluate(const Expr& expr, const Queryable& storage, Timestamp ts,
                       const EvalOptions& options = {});

}  // namespace rdmatop::promql
