// History: a bounded window of samples per series, fed once per tick with the canonical series
// and by recording rules; the rules engine queries it through promql::Queryable.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "collector/normalize/series.h"
#include "rules/promql/storage.h"

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

  std::vector<const promql::StoredSeries*> select(
      const std::vector<promql::LabelMatcher>& matchers) const override;
  /// Calls `visit` for each series `select` would return, in key order, until `visit`
  /// returns false: an existence check stops at the first match instead of collecting all.
  void for_each_match(const std::vector<promql::LabelMatcher>& matchers,
                      const std::function<bool(const promql::StoredSeries&)>& visit) const;

  std::size_t series_count() const { return series_.size(); }
  /// The newest timestamp ingested, 0 before the first.
  promql::Timestamp newest() const { return newest_; }

 private:
  promql::Timestamp retention_ms_;
  promql::Timestamp newest_ = 0;
  std::uint64_t created_ = 0;  ///< series created so far (StoredSeries::created)
  std::map<std::string, promql::StoredSeries> series_;
  /// Metric name -> keys of its series in series_: a selector naming its metric (all of the
  /// built-in rules' do) scans only that metric's series, not the whole History.
  std::map<std::string, std::set<std::string>, std::less<>> keys_by_name_;
  std::map<std::string, std::set<std::string>> last_by_source_;
  /// Key -> the raw counter(s) a counter series was last read from (Series::origin).
  std::map<std::string, std::string> origin_by_key_;

  void restart_if_origin_changed(const Labels& labels, const std::string& origin);
};

}  // namespace rdmatop
