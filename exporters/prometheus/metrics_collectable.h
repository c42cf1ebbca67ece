// The exporter's data model: one PublishedTick (plus the poll loop's own health) -> the Prometheus
// metric families a scrape returns. Pure: no I/O, no clock, no HTTP, so it is unit-tested with
// prometheus-cpp's TextSerializer alone. Values are built from the latest PublishedTick
// (once per collection, render_metrics_page) because prometheus-cpp's Counter only increments and
// cannot mirror an absolute kernel counter (prometheus-cpp core/include/prometheus/counter.h).
#pragma once

#include <prometheus/metric_family.h>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "collector/model/process_metrics.h"
#include "exporters/prometheus/line_cache.h"
#include "exporters/prometheus/raw_counter_filter.h"
#include "pipeline/tick.h"

namespace rdmatop {

/// Health of the exporter's poll loop, published with each PublishedTick.
struct PollStatus {
  std::uint64_t polls = 0;  ///< Monitor::step() calls completed
  /// Per (source, target): collections in which a read of it failed. Every source ever read
  /// has an entry, so the counter exists at 0 before its first error.
  std::map<std::pair<std::string, std::string>, std::uint64_t> source_errors;
  double last_poll_duration_seconds = 0;  ///< how long the last step() took
  double last_poll_end_unix_seconds = 0;  ///< wall clock when the last step() returned
};

struct MetricsOptions {
  bool raw_counters = true;     ///< also expose the raw driver counters (rdma_raw_*)
  RawCounterFilter raw_filter;  ///< which raw counters, when raw_counters is on
  std::string version;          ///< rdmatop_build_info{version}
};

/// What a scrape serves: the latest PublishedTick (null before the first poll) and the poll status.
struct ExporterView {
  std::shared_ptr<const PublishedTick> report;
  PollStatus poll;
  std::optional<ProcessMetrics> process;  ///< the exporter process itself (process_*)
};

/// Adds one collection's source outcomes to `errors`: +1 for each (source, target) with a
/// failed read in it (several reads of one target in a collection count once), 0 for the rest.
void count_source_errors(const Snapshot& snapshot,
                         std::map<std::pair<std::string, std::string>, std::uint64_t>& errors);

/// PublishedTick -> metric families, sorted by family name. `view.report` may be null: then only
/// the exporter's self-metrics are returned.
std::vector<prometheus::MetricFamily> build_metric_families(const ExporterView& view,
                                                            const MetricsOptions& options);

/// The same families as build_metric_families, as the text format 0.0.4: byte for byte what
/// text_exposition.h (and prometheus-cpp's TextSerializer) write of them, without building them
/// (the unit test holds the two equal). `size_hint`: the bytes to reserve (the last page's size).
/// `cache`: the line heads kept from the last page this writer wrote with the same `options`
/// (line_cache.h; not thread-safe: one page at a time); null: heads made for this page alone.
std::string render_metrics_text(const ExporterView& view, const MetricsOptions& options,
                                std::size_t size_hint = 0, MetricsLineCache* cache = nullptr);

/// The exporter's page: render_metrics_text of `view` with the exporter's own process metrics,
/// read now by `read_process` (on a host, a few small procfs reads of /proc/self, never sysfs
/// or the NIC). An empty reader, or one that fails, leaves the process_* families out.
std::string render_metrics_page(ExporterView view, const MetricsOptions& options,
                                const ProcessReader& read_process, std::size_t size_hint = 0,
                                MetricsLineCache* cache = nullptr);

}  // namespace rdmatop
