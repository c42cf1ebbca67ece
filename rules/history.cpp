#include "rules/history.h"

#include <algorithm>
#include <string_view>

namespace rdmatop {

using promql::Timestamp;

History::History(Timestamp retention_ms) : retention_ms_(retention_ms) {}

void History::set_retention(Timestamp retention_ms) {
  retention_ms_ = retention_ms;
}

History::Entry& History::entry_for(const std::string& key, const Labels& labels) {
  auto [it, inserted] = series_.try_emplace(key);
  Entry& entry = it->second;
  if (inserted) {
    entry.key = key;
    entry.stored.labels = labels;
    entry.stored.created = created_++;
    ++generation_;
    by_name_[label_value(labels, promql::kMetricNameLabel)].push_back(&entry);
  }
  return entry;
}

void History::append_to(Entry& entry, Timestamp ts, double value) {
  const auto& points = entry.stored.points();
  if (!points.empty() && points.back().t > ts) return;
  entry.stored.append(promql::Point{ts, value});  // replaces the last at the same timestamp
  newest_ = std::max(newest_, ts);
}

void History::append(const Labels& labels, Timestamp ts, double value) {
  append_to(entry_for(series_key("", labels), labels), ts, value);
}

namespace {

/// Whether `stored` (sorted, with __name__) is exactly promql::series_labels(s), compared in
/// place. Labels that arrive unsorted or carry a __name__ of their own answer false, and the
/// caller takes the key path, which handles them.
bool stored_as(const Series& s, const Labels& stored) {
  if (stored.size() != s.labels.size() + 1) return false;
  // A string_view: comparing with the `const char*` ran strlen for every label (~5% of a tick).
  constexpr std::string_view metric_name = promql::kMetricNameLabel;
  std::size_t j = 0;
  for (const auto& [name, value] : stored) {
    if (name == metric_name) {
      if (value != s.name) return false;
      continue;
    }
    if (j == s.labels.size() || s.labels[j].first != name || s.labels[j].second != value)
      return false;
    ++j;
  }
  return true;
}

}  // namespace

History::Entry& History::arrival_entry(const Series& s, Entry* same_position_last_tick) {
  if (same_position_last_tick != nullptr && stored_as(s, same_position_last_tick->stored.labels))
    return *same_position_last_tick;
  std::string arrival_key = series_key(s.name, s.labels);
  auto known = by_series_key_.find(arrival_key);
  if (known == by_series_key_.end()) {
    const Labels labels = promql::series_labels(s);
    Entry& created = entry_for(series_key("", labels), labels);
    created.series_keys.push_back(arrival_key);
    known = by_series_key_.emplace(std::move(arrival_key), &created).first;
  }
  return *known->second;
}

void History::ingest(const std::vector<Series>& series, Timestamp ts, const std::string& source) {
  std::vector<std::pair<Entry*, double>> samples;
  samples.reserve(series.size());
  std::vector<Entry*>& arrivals = arrivals_by_source_[source];
  arrivals.resize(series.size(), nullptr);
  for (std::size_t i = 0; i < series.size(); ++i) {
    const Series& s = series[i];
    Entry& entry = arrival_entry(s, arrivals[i]);
    arrivals[i] = &entry;
    if (s.kind == SeriesKind::counter && (!entry.has_origin || entry.origin != s.origin)) {
      // Another raw counter feeds the series now: rate() and increase() across the two would
      // subtract unrelated counters, so the series starts again from this tick.
      if (entry.has_origin) entry.stored.clear();
      entry.origin = s.origin;
      entry.has_origin = true;
    }
    samples.emplace_back(&entry, s.value);
  }
  ingest_keyed(samples, ts, source);
}

void History::ingest(const promql::Vector& samples, Timestamp ts, const std::string& source) {
  std::vector<std::pair<Entry*, double>> keyed;
  keyed.reserve(samples.size());
  for (const auto& s : samples)
    keyed.emplace_back(&entry_for(series_key("", s.labels), s.labels), s.value);
  ingest_keyed(keyed, ts, source);
}

void History::ingest_keyed(const std::vector<std::pair<Entry*, double>>& samples, Timestamp ts,
                           const std::string& source) {
  const std::uint64_t this_ingest = ++ingests_;
  std::vector<Entry*> now;
  now.reserve(samples.size());
  for (const auto& [entry, value] : samples) {
    append_to(*entry, ts, value);
    if (entry->seen_in != this_ingest) now.push_back(entry);
    entry->seen_in = this_ingest;
  }
  // A series the source carried last time and not now gets a staleness marker, as Prometheus
  // writes one when a target stops exposing a series.
  auto& last = last_by_source_[source];
  for (Entry* entry : last) {
    if (entry->seen_in != this_ingest) append_to(*entry, ts, promql::stale_nan());
  }
  last = std::move(now);
  prune(ts);
}

void History::erase(Entry& entry) {
  // Rare (a series silent for the whole retention): linear scans of the lists are fine.
  const auto drop = [&entry](std::vector<Entry*>& list) {
    list.erase(std::remove(list.begin(), list.end(), &entry), list.end());
  };
  const auto name = by_name_.find(label_value(entry.stored.labels, promql::kMetricNameLabel));
  if (name != by_name_.end()) {
    drop(name->second);
    if (name->second.empty()) by_name_.erase(name);
  }
  for (auto& [source, last] : last_by_source_) drop(last);
  for (auto& [source, arrivals] : arrivals_by_source_)
    std::replace(arrivals.begin(), arrivals.end(), &entry, static_cast<Entry*>(nullptr));
  for (const std::string& key : entry.series_keys) by_series_key_.erase(key);
  series_.erase(entry.key);
  ++generation_;
}

void History::prune(Timestamp now) {
  const Timestamp oldest = now - retention_ms_;
  std::vector<Entry*> emptied;
  for (auto& [key, entry] : series_) {
    entry.stored.drop_before(oldest);
    if (entry.stored.points().empty()) emptied.push_back(&entry);
  }
  for (Entry* entry : emptied) erase(*entry);
}

std::vector<const promql::StoredSeries*> History::select(
    const std::vector<promql::LabelMatcher>& matchers) const {
  return matching(matchers);
}

void History::for_each_match(const std::vector<promql::LabelMatcher>& matchers,
                             const std::function<bool(const promql::StoredSeries&)>& visit) const {
  for (const promql::StoredSeries* s : matching(matchers)) {
    if (!visit(*s)) return;
  }
}

const SelectionCache::Selection& History::matching(
    const std::vector<promql::LabelMatcher>& matchers) const {
  if (const auto* cached = selections_.find(matchers, generation_)) return *cached;
  return selections_.store(matchers, scan(matchers));
}

SelectionCache::Selection History::scan(const std::vector<promql::LabelMatcher>& matchers) const {
  SelectionCache::Selection out;
  for (const auto& m : matchers) {
    if (m.name != promql::kMetricNameLabel || m.op != promql::MatchOp::equal) continue;
    const auto name = by_name_.find(m.value);
    if (name == by_name_.end()) return out;
    for (const Entry* entry : name->second) {
      if (promql::matches_all(entry->stored.labels, matchers)) out.push_back(&entry->stored);
    }
    return out;
  }
  // No metric name to narrow by: every series, in creation order.
  std::vector<const Entry*> all;
  all.reserve(series_.size());
  for (const auto& [key, entry] : series_) all.push_back(&entry);
  std::sort(all.begin(), all.end(),
            [](const Entry* a, const Entry* b) { return a->stored.created < b->stored.created; });
  for (const Entry* entry : all) {
    if (promql::matches_all(entry->stored.labels, matchers)) out.push_back(&entry->stored);
  }
  return out;
}

const promql::StoredSeries* History::find(const Labels& labels) const {
  const auto it = series_.find(series_key("", labels));
  return it == series_.end() ? nullptr : &it->second.stored;
}

}  // namespace rdmatop
