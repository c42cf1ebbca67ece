#include "rules/promql/storage.h"

#include <algorithm>
#include <cstddef>
#include <limits>

namespace rdmatop::promql {

namespace {

/// How many of the ascending `indices` fall in [from, to).
std::size_t count_between(const std::vector<std::uint64_t>& indices, std::uint64_t from,
                          std::uint64_t to) {
  if (indices.empty() || from >= to) return 0;
  const auto lo = std::lower_bound(indices.begin(), indices.end(), from);
  const auto hi = std::lower_bound(lo, indices.end(), to);
  return static_cast<std::size_t>(hi - lo);
}

/// Drops the indices below `from` (the points they named were dropped).
void drop_below(std::vector<std::uint64_t>& indices, std::uint64_t from) {
  indices.erase(indices.begin(), std::lower_bound(indices.begin(), indices.end(), from));
}

/// The first of `points` (ascending timestamps) at or after `t`: std::lower_bound, in two or
/// three looks at the deque instead of log2(n) scattered over its blocks. Rules read windows
/// that end at the newest point, over series that get one point per tick: the position of `t`
/// is guessed from the average spacing of the points and confirmed by its neighbours; the
/// binary search runs only when the guess misses (irregular ticks, gaps). At 8,100 series
/// with 10 minutes of history the binary searches' cache misses were most of the rules' time.
std::deque<Point>::const_iterator first_at_or_after(const std::deque<Point>& points, Timestamp t) {
  const std::size_t n = points.size();
  if (n == 0 || points.front().t >= t) return points.begin();
  if (points.back().t < t) return points.end();
  // Here n >= 2 and front < t <= back, so the answer is in [1, n - 1].
  const double span = static_cast<double>(points.back().t - points.front().t);
  const double offset = static_cast<double>(t - points.front().t);
  const auto guess = std::clamp<std::size_t>(
      static_cast<std::size_t>(offset / span * static_cast<double>(n - 1)), 1, n - 1);
  const auto at = points.begin() + static_cast<std::ptrdiff_t>(guess);
  if (at->t >= t) {
    if ((at - 1)->t < t) return at;
  } else if (guess + 1 < n && (at + 1)->t >= t) {
    return at + 1;
  }
  return std::lower_bound(points.begin(), points.end(), t,
                          [](const Point& p, Timestamp x) { return p.t < x; });
}

/// The first of `points` after `t` (std::upper_bound): at or after t + 1, timestamps being
/// whole milliseconds.
std::deque<Point>::const_iterator first_after(const std::deque<Point>& points, Timestamp t) {
  if (t == std::numeric_limits<Timestamp>::max()) return points.end();
  return first_at_or_after(points, t + 1);
}

}  // namespace

std::deque<Point>::const_iterator StoredSeries::first_after(Timestamp t) const {
  return promql::first_after(points_, t);
}

void StoredSeries::append(Point p) {
  if (!points_.empty() && points_.back().t == p.t) {
    // The last point is replaced: forget what it was, then file the new value as a new point.
    const std::uint64_t last = dropped_ + points_.size() - 1;
    if (!stale_.empty() && stale_.back() == last) stale_.pop_back();
    if (!resets_.empty() && resets_.back() == last) resets_.pop_back();
    points_.pop_back();
  }
  const std::uint64_t index = dropped_ + points_.size();
  if (is_stale_nan(p.v)) {
    stale_.push_back(index);
  } else {
    // The reset test of extrapolated_rate (promql/functions.go extrapolatedRate): below the
    // previous sample, staleness markers skipped (a range selector never returns them).
    for (auto it = points_.rbegin(); it != points_.rend(); ++it) {
      if (is_stale_nan(it->v)) continue;
      if (p.v < it->v) resets_.push_back(index);
      break;
    }
  }
  points_.push_back(p);
}

void StoredSeries::drop_before(Timestamp oldest) {
  const std::uint64_t before = dropped_;
  while (!points_.empty() && points_.front().t < oldest) {
    points_.pop_front();
    ++dropped_;
  }
  if (dropped_ == before) return;
  drop_below(stale_, dropped_);
  drop_below(resets_, dropped_);
}

void StoredSeries::clear() {
  dropped_ += points_.size();
  points_.clear();
  stale_.clear();
  resets_.clear();
}

StoredWindow StoredSeries::window(Timestamp start, Timestamp end) const {
  StoredWindow w;
  w.begin = first_at_or_after(points_, start);
  w.end = std::max(w.begin, promql::first_after(points_, end));
  const auto index = [this](std::deque<Point>::const_iterator it) {
    return dropped_ + static_cast<std::uint64_t>(it - points_.begin());
  };
  const std::uint64_t from = index(w.begin);
  const std::uint64_t to = index(w.end);
  w.samples = static_cast<std::size_t>(to - from) - count_between(stale_, from, to);
  if (w.samples == 0) return w;
  auto first = w.begin;
  while (is_stale_nan(first->v)) ++first;
  auto last = w.end;
  do --last;
  while (is_stale_nan(last->v));
  w.first = *first;
  w.last = *last;
  // The window's first sample is no reset within it, whatever came before it.
  w.resets = count_between(resets_, index(first) + 1, to);
  return w;
}

}  // namespace rdmatop::promql
