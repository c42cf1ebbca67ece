#include "rules/history.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
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
    entry.front_index = fronts_.size();
    fronts_.emplace_back(std::numeric_limits<Timestamp>::max(), &entry);
    ++generation_;
    by_name_[label_value(labels, promql::kMetricNameLabel)].push_back(&entry);
  }
  return entry;
}

void History::append_to(Entry& entry, Timestamp ts, double value) {
  const auto& points = entry.stored.points();
  if (!points.empty() && points.back().t > ts) return;
  const bool was_empty = points.empty();
  entry.stored.append(promql::Point{ts, value});  // replaces the last at the same timestamp
  if (was_empty) note_front(entry);
  newest_ = std::max(newest_, ts);
}

void History::drop_before(Entry& entry, Timestamp oldest) {
  entry.stored.drop_before(oldest);
  note_front(entry);
}

void History::note_front(const Entry& entry) {
  const auto& points = entry.stored.points();
  fronts_[entry.front_index].first =
      points.empty() ? std::numeric_limits<Timestamp>::max() : points.front().t;
}

void History::append(const Labels& labels, Timestamp ts, double value) {
  append_to(entry_for(series_key("", labels), labels), ts, value);
}

namespace {

void pack(std::string& out, std::string_view text) {
  const auto size = static_cast<std::uint32_t>(text.size());
  out.append(reinterpret_cast<const char*>(&size), sizeof size);
  out.append(text);
}

/// Appends the arrival record of `s`: what decides its entry and its origin.
void pack_arrival(std::string& out, const Series& s) {
  pack(out, s.name);
  const auto count = static_cast<std::uint32_t>(s.labels.size());
  out.append(reinterpret_cast<const char*>(&count), sizeof count);
  for (const auto& [name, value] : s.labels) {
    pack(out, name);
    pack(out, value);
  }
  out.push_back(static_cast<char>(s.kind));
  pack(out, s.origin);
}

/// Reads a record written by pack_arrival and compares it with a series as it goes.
class RecordReader {
 public:
  explicit RecordReader(std::string_view record) : rest_(record) {}
  bool text(std::string_view expected) {
    std::uint32_t size = 0;
    if (rest_.size() < sizeof size) return false;
    std::memcpy(&size, rest_.data(), sizeof size);
    if (size != expected.size() || rest_.size() - sizeof size < size) return false;
    if (rest_.compare(sizeof size, size, expected) != 0) return false;
    rest_.remove_prefix(sizeof size + size);
    return true;
  }
  bool count(std::uint32_t expected) {
    std::uint32_t n = 0;
    if (rest_.size() < sizeof n) return false;
    std::memcpy(&n, rest_.data(), sizeof n);
    rest_.remove_prefix(sizeof n);
    return n == expected;
  }
  bool byte(char expected) {
    if (rest_.empty() || rest_.front() != expected) return false;
    rest_.remove_prefix(1);
    return true;
  }
  bool at_end() const { return rest_.empty(); }

 private:
  std::string_view rest_;
};

/// Whether `record` is the arrival record of `s`, compared in place.
bool arrived_as(const Series& s, std::string_view record) {
  RecordReader r(record);
  if (!r.text(s.name) || !r.count(static_cast<std::uint32_t>(s.labels.size()))) return false;
  for (const auto& [name, value] : s.labels) {
    if (!r.text(name) || !r.text(value)) return false;
  }
  return r.byte(static_cast<char>(s.kind)) && r.text(s.origin) && r.at_end();
}

}  // namespace

History::Entry& History::arrival_entry(const Series& s) {
  std::string arrival_key = series_key(s.name, s.labels);
  auto known = by_series_key_.find(arrival_key);
  if (known == by_series_key_.end()) {
    const Labels labels = promql::series_labels(s);
    Entry& created = entry_for(series_key("", labels), labels);
    created.series_keys.push_back(arrival_key);
    known = by_series_key_.emplace(std::move(arrival_key), &created).first;
  }
  Entry& entry = *known->second;
  if (s.kind == SeriesKind::counter && (!entry.has_origin || entry.origin != s.origin)) {
    // Another raw counter feeds the series now: rate() and increase() across the two would
    // subtract unrelated counters, so the series starts again from this tick.
    if (entry.has_origin) {
      entry.stored.clear();
      note_front(entry);
    }
    entry.origin = s.origin;
    entry.has_origin = true;
    ++entry.origin_changes;
    ++origin_changes_;
  }
  return entry;
}

void History::record_arrivals(const std::vector<Series>& series,
                              const std::vector<std::pair<Entry*, double>>& filed,
                              Arrivals& arrivals) const {
  arrivals.positions.clear();
  arrivals.packed.clear();
  arrivals.all_origin_changes = origin_changes_;
  for (std::size_t i = 0; i < series.size(); ++i) {
    const std::size_t begin = arrivals.packed.size();
    pack_arrival(arrivals.packed, series[i]);
    Entry* entry = filed[i].first;
    const Series& s = series[i];
    arrivals.positions.push_back({entry, entry->origin_changes, begin, arrivals.packed.size(),
                                  s.name, s.labels, s.origin, s.kind});
  }
}

void History::ingest(const std::vector<Series>& series, Timestamp ts, const std::string& source) {
  std::vector<std::pair<Entry*, double>> samples;
  samples.reserve(series.size());
  Arrivals& last = arrivals_by_source_[source];
  const std::string_view packed = last.packed;
  bool changed = series.size() != last.positions.size();
  // No origin changed anywhere since the records were made (nearly always): the entries'
  // counts need not be read.
  const bool origins_as_recorded = last.all_origin_changes == origin_changes_;
  for (std::size_t i = 0; i < series.size(); ++i) {
    const Series& s = series[i];
    const Arrivals::Position* was = i < last.positions.size() ? &last.positions[i] : nullptr;
    Entry* same = was != nullptr ? was->entry : nullptr;
    // The same series as last tick at this position, and nothing changed its entry's origin
    // since: same entry, same origin.
    if (same != nullptr && (origins_as_recorded || same->origin_changes == was->origin_changes) &&
        (was->shared_by(s) || arrived_as(s, packed.substr(was->begin, was->end - was->begin)))) {
      samples.emplace_back(same, s.value);
      continue;
    }
    changed = true;
    samples.emplace_back(&arrival_entry(s), s.value);
  }
  if (changed) record_arrivals(series, samples, last);
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
  const Timestamp oldest = ts - retention_ms_;
  std::vector<Entry*> now;
  now.reserve(samples.size());
  for (const auto& [entry, value] : samples) {
    append_to(*entry, ts, value);
    // Pruned here, while the entry is in the cache; prune() below then finds it done.
    if (fronts_[entry->front_index].first < oldest) drop_before(*entry, oldest);
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
  for (auto& [source, arrivals] : arrivals_by_source_) {
    for (auto& position : arrivals.positions) {
      if (position.entry == &entry) position.entry = nullptr;
    }
  }
  for (const std::string& key : entry.series_keys) by_series_key_.erase(key);
  // Out of fronts_ by moving the last one into its place.
  const std::size_t at = entry.front_index;
  fronts_[at] = fronts_.back();
  fronts_[at].second->front_index = at;
  fronts_.pop_back();
  series_.erase(entry.key);
  ++generation_;
}

void History::prune(Timestamp now) {
  const Timestamp oldest = now - retention_ms_;
  constexpr Timestamp kNoPoints = std::numeric_limits<Timestamp>::max();
  std::vector<Entry*> emptied;
  for (const auto& [front, entry] : fronts_) {
    if (front >= oldest && front != kNoPoints) continue;  // nothing to drop
    if (front != kNoPoints) drop_before(*entry, oldest);
    if (entry->stored.points().empty()) emptied.push_back(entry);
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
