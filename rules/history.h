// History: a bounded window of samples per series, fed once per tick with the canonical series
// and by recording rules; the rules engine queries it through promql::Queryable.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "collector/normalize/series.h"
#include "rules/promql/storage.h"
#include "rules/selection_cache.h"

namespace rdmatop {

class History : public promql::Queryable {
 public:
  /// `retention_ms`: how far back samples are kept (size it with promql::max_lookback_ms over
  /// the loaded rules; RuleSet::required_retention_ms does).
  explicit History(promql::Timestamp retention_ms = 15 * 60 * 1000);

  void set_retention(promql::Timestamp retention_ms);
  promql::Timestamp retention() const { return retention_ms_; }

  /// One collector tick. A counter whose origin (the raw counter feeding it) changed since the
  /// previous tick restarts: its earlier samples are dropped, so no rate spans two counters.
  /// A series present at the previous tick from the same `source` but
  /// missing now gets a staleness marker, as Prometheus writes one when a target stops
  /// exposing a series (so instant selectors stop seeing it at once, not after 5 minutes).
  void ingest(const std::vector<Series>& series, promql::Timestamp ts,
              const std::string& source = "collector");
  void ingest(const promql::Vector& samples, promql::Timestamp ts, const std::string& source);

  /// Appends one sample (NaN staleness markers included). Samples older than the series'
  /// newest are dropped; a sample at the same timestamp replaces it.
  void append(const Labels& labels, promql::Timestamp ts, double value);

  /// Drops samples older than `now - retention` and series left empty.
  void prune(promql::Timestamp now);

  /// Matched once per set of series: the selection is cached until a series is created or
  /// erased (SelectionCache).
  std::vector<const promql::StoredSeries*> select(
      const std::vector<promql::LabelMatcher>& matchers) const override;
  /// Calls `visit` for each series `select` would return, in the same (creation) order, until
  /// `visit` returns false.
  void for_each_match(const std::vector<promql::LabelMatcher>& matchers,
                      const std::function<bool(const promql::StoredSeries&)>& visit) const;

  /// The series with exactly these (sorted) labels, or nullptr: one hash lookup.
  const promql::StoredSeries* find(const Labels& labels) const;

  std::size_t series_count() const { return series_.size(); }
  /// The newest timestamp ingested, 0 before the first.
  promql::Timestamp newest() const { return newest_; }
  /// Changes whenever a series is created or erased, and only then.
  std::uint64_t series_generation() const { return generation_; }

 private:
  /// One stored series and what ingest tracks of it. Entries live in `series_` (an
  /// unordered_map: its nodes, so these pointers, stay put until the entry is erased).
  struct Entry {
    promql::StoredSeries stored;
    std::string key;     ///< series_key of the labels, built once, when the series is created
    std::string origin;  ///< the raw counter(s) a counter series was last read from
    bool has_origin = false;
    /// Keys of `by_series_key_` naming this entry (erased with it).
    std::vector<std::string> series_keys;
    /// ingest() call that last carried the series (staleness: present before, missing now).
    std::uint64_t seen_in = 0;
    /// How many times `origin` changed: an arrival record (Arrivals) of this entry holds the
    /// count it saw, so a matching record proves the origin is still the series' own.
    std::uint64_t origin_changes = 0;
    /// This entry's position in `fronts_`.
    std::size_t front_index = 0;
  };

  /// What a source's previous collector ingest() carried, position by position. The normalizer
  /// emits a host's series in the same order every tick, so the series at position i is almost
  /// always the one at i last time. Each is kept packed (name, labels, kind and origin as
  /// length-prefixed bytes, the records one after another in one string) with the entry it
  /// went to: a series equal to its record goes to that entry after one sequential comparison
  /// of ~150 bytes, where comparing it with the entry's own labels and origin read ~500 bytes
  /// scattered over the heap (their cache misses were a quarter of the rules' tick at 8,100
  /// series).
  struct Arrivals {
    struct Position {
      Entry* entry = nullptr;            ///< nullptr where the entry was erased since
      std::uint64_t origin_changes = 0;  ///< the entry's origin_changes when filed
      std::size_t begin = 0;             ///< the record is packed[begin, end)
      std::size_t end = 0;
      /// The series' own name, labels and origin: a series of the Normalizer's next tick holds
      /// the same ones (labels.h), and is then known without reading the record.
      SharedText name;
      SharedLabels labels;
      SharedText origin;
      SeriesKind kind = SeriesKind::counter;
      bool shared_by(const Series& s) const {
        return s.name.shares_with(name) && s.labels.shares_with(labels) &&
               s.origin.shares_with(origin) && s.kind == kind;
      }
    };
    std::vector<Position> positions;
    /// History::origin_changes_ when recorded: while it is unchanged, no entry's origin
    /// changed, and the entries need not be read to know it.
    std::uint64_t all_origin_changes = 0;
    std::string packed;
  };

  /// The entry a collector Series goes to, found (or created) by its arrival key; the
  /// counter's origin updated.
  Entry& arrival_entry(const Series& s);
  /// Rewrites `arrivals` for this ingest's series and the entries they went to.
  void record_arrivals(const std::vector<Series>& series,
                       const std::vector<std::pair<Entry*, double>>& filed,
                       Arrivals& arrivals) const;

  promql::Timestamp retention_ms_;
  promql::Timestamp newest_ = 0;
  std::uint64_t created_ = 0;         ///< series created so far (StoredSeries::created)
  std::uint64_t ingests_ = 0;         ///< ingest() calls so far (Entry::seen_in)
  std::uint64_t generation_ = 0;      ///< series_generation()
  std::uint64_t origin_changes_ = 0;  ///< the sum of the entries' origin_changes, ever
  /// Every entry with the timestamp of its oldest point (max() when it has none), densely:
  /// prune() finds the series that hold points past the retention here, without reading each
  /// series (a cache miss per series per tick at 8,100 series).
  std::vector<std::pair<promql::Timestamp, Entry*>> fronts_;
  std::unordered_map<std::string, Entry> series_;
  /// Metric name -> its series in creation order: a selector naming its metric (all of the
  /// built-in rules' do) scans only that metric's series, already in select()'s order.
  std::map<std::string, std::vector<Entry*>, std::less<>> by_name_;
  /// series_key(name, labels) of a collector Series as it arrives (labels unsorted, name
  /// apart) -> its entry: the tick finds a known series without copying and sorting its labels.
  std::unordered_map<std::string, Entry*> by_series_key_;
  /// Source -> the series its previous ingest() carried.
  std::map<std::string, std::vector<Entry*>> last_by_source_;
  /// Source -> what its previous collector ingest() carried: a series that arrives as it did
  /// last tick needs no key built and hashed (the key lookup was ~5% of a tick of the built-in
  /// pack).
  std::map<std::string, Arrivals> arrivals_by_source_;
  /// Selections of the current series_generation(); filled by the const select().
  mutable SelectionCache selections_;

  Entry& entry_for(const std::string& key, const Labels& labels);
  void append_to(Entry& entry, promql::Timestamp ts, double value);
  /// Drops the entry's points older than `oldest` and notes its new oldest point.
  void drop_before(Entry& entry, promql::Timestamp oldest);
  /// Writes the entry's oldest point into `fronts_`.
  void note_front(const Entry& entry);
  void ingest_keyed(const std::vector<std::pair<Entry*, double>>& samples, promql::Timestamp ts,
                    const std::string& source);
  void erase(Entry& entry);
  const SelectionCache::Selection& matching(
      const std::vector<promql::LabelMatcher>& matchers) const;
  SelectionCache::Selection scan(const std::vector<promql::LabelMatcher>& matchers) const;
};

}  // namespace rdmatop
