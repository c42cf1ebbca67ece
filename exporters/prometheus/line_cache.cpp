#include "exporters/prometheus/line_cache.h"

#include "exporters/prometheus/text_exposition.h"

namespace rdmatop {

void append_sample_head(TextBuffer& out, std::string_view name, const Labels& labels) {
  // name{label="value",...} : the labels, "{}" and the space.
  std::size_t bound = name.size() + 3;
  for (const auto& [label, value] : labels) bound += LineWriter::label_bound(label, value);
  LineWriter line(out, bound);
  line.text(name);
  if (!labels.empty()) {
    line.text('{');
    bool first = true;
    for (const auto& [label, value] : labels) {
      line.label(first, label, value);
      first = false;
    }
    line.text('}');
  }
  line.text(' ');
}

MetricsLineCache::SeriesLine MetricsLineCache::series_line(std::size_t at, const Series& series) {
  if (at >= series_.size()) series_.resize(at + 1);
  SeriesHead& kept = series_[at];
  if (!kept.name.shares_with(series.name) || !kept.labels.shares_with(series.labels)) {
    kept.name = series.name;
    kept.labels = series.labels;
    kept.head.clear();
    append_sample_head(kept.head, series.name.str(), series.labels);
    kept.family = nullptr;
  }
  return SeriesLine{kept.head.view(), kept.family};
}

const MetricsLineCache::RawRun& MetricsLineCache::raw_run(std::size_t at, const std::string& family,
                                                          const Labels& labels,
                                                          const std::string& key_label,
                                                          const CounterMap& counters,
                                                          const RawCounterFilter& filter) {
  if (at >= raw_.size()) raw_.resize(at + 1);
  RawRun& run = raw_[at];
  if (run.names == counters.names() && run.filter == &filter && run.family == family &&
      run.labels == labels) {
    return run;
  }
  run.family = family;
  run.labels = labels;
  run.names = counters.names();
  run.filter = &filter;
  run.heads.clear();
  run.ends.clear();
  run.slots.clear();
  Labels with_key = labels;
  with_key.emplace_back(key_label, std::string());
  const bool ethtool_stats = key_label == "stat";
  std::uint32_t slot = 0;
  for (const auto& [name, value] : counters) {
    if (filter.admits(name, ethtool_stats)) {
      with_key.back().second = name;
      append_sample_head(run.heads, family, with_key);
      run.ends.push_back(static_cast<std::uint32_t>(run.heads.size()));
      run.slots.push_back(slot);
    }
    ++slot;
  }
  return run;
}

}  // namespace rdmatop
