// The evaluator's view of stored samples. History (rules/history.h) implements it for the
// host; the promtool-format test runner fills one from `input_series`.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "rules/promql/ast.h"
#include "rules/promql/value.h"

namespace rdmatop::promql {

/// What a rate over a window needs beside its two ends (StoredSeries::window).
struct StoredWindow {
  /// Every point with a timestamp in the closed window, staleness markers included.
  std::deque<Point>::const_iterator begin;
  std::deque<Point>::const_iterator end;
  std::size_t samples = 0;  ///< the non-stale points among them
  /// Non-stale points below the non-stale point before them in the window: counter resets.
  std::size_t resets = 0;
  Point first;  ///< the first and last samples (non-stale points), when there are any
  Point last;
};

/// One stored series. Beside its points it keeps, sparsely, where its staleness markers and
/// counter resets are, so a window's sample and reset counts are binary searches: rate() and
/// increase() then cost the same over 10 minutes of history as over 20 seconds (both are
/// nearly always empty lists, and cost nothing per point).
class StoredSeries {
 public:
  Labels labels;              ///< sorted, including `__name__`
  std::uint64_t created = 0;  ///< creation sequence: select() returns series in this order

  /// Ascending timestamps; stale markers are stale_nan() values.
  const std::deque<Point>& points() const { return points_; }
  /// A point newer than the last, or the last one's new value when `p.t` is its timestamp.
  /// An older point is the caller's error: History drops those before they get here.
  void append(Point p);
  /// Drops the points older than `oldest`.
  void drop_before(Timestamp oldest);
  void clear();
  /// The points with a timestamp in [start, end], and their sample and reset counts.
  StoredWindow window(Timestamp start, Timestamp end) const;
  /// The first point with a timestamp after `t` (std::upper_bound), found as window() finds
  /// its ends: the newest point is looked at first.
  std::deque<Point>::const_iterator first_after(Timestamp t) const;

 private:
  std::deque<Point> points_;
  /// Points dropped from the front so far: point i of `points_` has the index dropped_ + i for
  /// the series' whole life, which is what `stale_` and `resets_` hold.
  std::uint64_t dropped_ = 0;
  std::vector<std::uint64_t> stale_;   ///< indices of the staleness markers, ascending
  std::vector<std::uint64_t> resets_;  ///< indices of the counter resets, ascending
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
