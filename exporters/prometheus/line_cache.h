// The parts of the /metrics page that stay the same between collections, kept by the page's
// writer (render_metrics_text): every sample line's text up to its value.
//
// Of the 16-port host's 8,600 lines, every one's name and labels are what they were last
// collection until discovery changes something; only the values change. Writing them again
// each collection (escaping each label value, filtering each raw counter name) was most of the
// page's cost, the largest part of a collection without rules (issue 18, bench/README.md).
// Lines are kept by their position in the page's walk and checked cheaply: a canonical series
// by the name and labels it shares with last collection's (shared_text.h, labels.h), a raw
// counter map by its names vector (counter_map.h) and its object's labels.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "collector/model/counter_map.h"
#include "collector/normalize/series.h"
#include "exporters/prometheus/raw_counter_filter.h"
#include "exporters/prometheus/text_exposition.h"

namespace rdmatop {

/// Writes "name{label="value",...} ": a sample line up to its value (text format 0.0.4).
void append_sample_head(TextBuffer& out, std::string_view name, const Labels& labels);

class MetricsLineCache {
 public:
  struct FamilyText;
  /// The line of the `at`-th canonical series of the page's walk, up to its value, and the
  /// family its page text goes to: null until the writer sets it, and again whenever the series
  /// at `at` is another (a family is never removed, so the pointer stays valid).
  struct SeriesLine {
    std::string_view head;
    FamilyText*& family;
  };
  SeriesLine series_line(std::size_t at, const Series& series);

  /// One raw counter map's lines: the heads of the counters `filter` admits, in the map's
  /// order, one after another in `heads`; `ends[k]` ends the k-th, whose value is
  /// `values()[slots[k]]`.
  struct RawRun {
    std::string family;
    Labels labels;  ///< the object's, without the counter's own label
    SharedCounterNames names;
    const RawCounterFilter* filter = nullptr;
    TextBuffer heads;
    std::vector<std::uint32_t> ends;
    std::vector<std::uint32_t> slots;
  };
  /// The lines of `counters`, the `at`-th raw map of the page's walk: samples of `family`
  /// whose labels are `labels`, then `key_label` set to the counter's name.
  const RawRun& raw_run(std::size_t at, const std::string& family, const Labels& labels,
                        const std::string& key_label, const CounterMap& counters,
                        const RawCounterFilter& filter);

  /// One family's text on the page: its "# HELP" and "# TYPE" lines, then its samples. Kept
  /// from page to page, so that each family's buffer keeps the size it grew to: a page clears
  /// the lines, it does not free them (growing ~100 buffers from empty, the raw ethtool
  /// family's to ~300 KiB, was a tenth of the page's cost at 16 ports).
  struct FamilyText {
    std::string head;
    TextBuffer lines;
    std::uint64_t page = 0;  ///< the last page (begin_page) that wrote to it
  };
  using Families = std::map<std::string, FamilyText, std::less<>>;
  /// Starts a page: its families are those whose `page` is the number returned.
  std::uint64_t begin_page() { return ++pages_; }
  Families& families() { return families_; }

 private:
  struct SeriesHead {
    SharedText name;
    SharedLabels labels;
    TextBuffer head;
    FamilyText* family = nullptr;
  };
  std::vector<SeriesHead> series_;
  std::vector<RawRun> raw_;
  Families families_;
  std::uint64_t pages_ = 0;
};

}  // namespace rdmatop
