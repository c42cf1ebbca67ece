#include "rules/promql/storage.h"

#include <algorithm>

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

}  // namespace

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
  w.begin = std::lower_bound(points_.begin(), points_.end(), start,
                             [](const Point& p, Timestamp t) { return p.t < t; });
  w.end = std::upper_bound(w.begin, points_.end(), end,
                           [](Timestamp t, const Point& p) { return t < p.t; });
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
