#include "rules/history.h"

#include <algorithm>

namespace rdmatop {

using promql::Timestamp;

History::History(Timestamp retention_ms) : retention_ms_(retention_ms) {}

void History::set_retention(Timestamp retention_ms) {
  retention_ms_ = retention_ms;
}

void History::append(const Labels& labels, Timestamp ts, double value) {
  const std::string key = series_key("", labels);
  auto [it, inserted] = series_.try_emplace(key);
  if (inserted) {
    it->second.labels = labels;
    it->second.created = created_++;
    keys_by_name_[label_value(labels, promql::kMetricNameLabel)].insert(key);
  }
  auto& points = it->second.points;
  if (!points.empty() && points.back().t > ts) return;
  if (!points.empty() && points.back().t == ts) {
    points.back().v = value;
  } else {
    points.push_back(promql::Point{ts, value});
  }
  newest_ = std::max(newest_, ts);
}

void History::ingest(const std::vector<Series>& series, Timestamp ts, const std::string& source) {
  promql::Vector samples;
  samples.reserve(series.size());
  for (const auto& s : series) {
    samples.push_back(promql::Sample{promql::series_labels(s), s.value});
    if (s.kind == SeriesKind::counter) restart_if_origin_changed(samples.back().labels, s.origin);
  }
  ingest(samples, ts, source);
}

void History::restart_if_origin_changed(const Labels& labels, const std::string& origin) {
  const std::string key = series_key("", labels);
  auto [known, inserted] = origin_by_key_.try_emplace(key, origin);
  if (inserted || known->second == origin) return;
  known->second = origin;
  // Another raw counter feeds the series now: rate() and increase() across the two would
  // subtract unrelated counters, so the series starts again from this tick.
  if (auto it = series_.find(key); it != series_.end()) it->second.points.clear();
}

void History::ingest(const promql::Vector& samples, Timestamp ts, const std::string& source) {
  std::set<std::string> now;
  for (const auto& s : samples) {
    now.insert(series_key("", s.labels));
    append(s.labels, ts, s.value);
  }
  auto& last = last_by_source_[source];
  for (const auto& key : last) {
    if (now.count(key) != 0) continue;
    auto it = series_.find(key);
    if (it != series_.end()) append(it->second.labels, ts, promql::stale_nan());
  }
  last = std::move(now);
  prune(ts);
}

void History::prune(Timestamp now) {
  const Timestamp oldest = now - retention_ms_;
  for (auto it = series_.begin(); it != series_.end();) {
    auto& points = it->second.points;
    while (!points.empty() && points.front().t < oldest) points.pop_front();
    if (points.empty()) {
      const auto name =
          keys_by_name_.find(label_value(it->second.labels, promql::kMetricNameLabel));
      if (name != keys_by_name_.end()) {
        name->second.erase(it->first);
        if (name->second.empty()) keys_by_name_.erase(name);
      }
      origin_by_key_.erase(it->first);
      it = series_.erase(it);
    } else {
      ++it;
    }
  }
}

std::vector<const promql::StoredSeries*> History::select(
    const std::vector<promql::LabelMatcher>& matchers) const {
  std::vector<const promql::StoredSeries*> out;
  for_each_match(matchers, [&out](const promql::StoredSeries& s) {
    out.push_back(&s);
    return true;
  });
  std::sort(out.begin(), out.end(),
            [](const promql::StoredSeries* a, const promql::StoredSeries* b) {
              return a->created < b->created;
            });
  return out;
}

void History::for_each_match(const std::vector<promql::LabelMatcher>& matchers,
                             const std::function<bool(const promql::StoredSeries&)>& visit) const {
  for (const auto& m : matchers) {
    if (m.name != promql::kMetricNameLabel || m.op != promql::MatchOp::equal) continue;
    // Same key order as the full scan below, restricted to the named metric's series.
    const auto name = keys_by_name_.find(m.value);
    if (name == keys_by_name_.end()) return;
    for (const auto& key : name->second) {
      const promql::StoredSeries& s = series_.at(key);
      if (promql::matches_all(s.labels, matchers) && !visit(s)) return;
    }
    return;
  }
  for (const auto& [key, s] : series_) {
    if (promql::matches_all(s.labels, matchers) && !visit(s)) return;
  }
}

}  // namespace rdmatop
