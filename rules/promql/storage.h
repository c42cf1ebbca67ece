// The evaluator's view of stored samples. History (rules/history.h) implements it for the
// host; the promtool-format test runner fills one from `input_series`.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "rules/promql/ast.h"
#include "rules/promql/value.h"

namespace rdmatop::promql {

struct StoredSeries {
  Labels labels;              ///< sorted, including `__name__`
  std::deque<Point> points;   ///< ascending timestamps; stale markers are stale_nan() values
  std::uint64_t created = 0;  ///< creation sequence: select() returns series in this order
};

class Queryable {
 public:
  virtual ~Queryable() = default;
  /// Every series whose labels satisfy all `matchers` (absent labels match as ""), in the order
  /// the series were created, as Prometheus's head block returns them (postings are sorted by
  /// series reference, assigned at creation: tsdb/head.go getOrCreate). The order decides the
  /// last bits of sums and means.
  virtual std::vector<const StoredSeries*> select(
      const std::vector<LabelMatcher>& matchers) const = 0;
};

/// True when `labels` satisfy every matcher.
bool matches_all(const Labels& labels, const std::vector<LabelMatcher>& matchers);

}  // namespace rdmatop::promql
