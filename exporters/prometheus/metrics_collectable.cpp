#include "exporters/prometheus/metrics_collectable.h"

#include <chrono>
#include <map>
#include <set>
#include <utility>

#include "collector/normalize/metric_catalogue.h"
#include "exporters/prometheus/line_cache.h"
#include "exporters/prometheus/probe_metrics.h"
#include "exporters/prometheus/text_exposition.h"

namespace rdmatop {

namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

MetricType metric_type(MetricKind kind) {
  switch (kind) {
    case MetricKind::counter:
      return MetricType::Counter;
    case MetricKind::gauge:
      return MetricType::Gauge;
    case MetricKind::histogram:
      return MetricType::Histogram;
    case MetricKind::untyped:
      break;
  }
  return MetricType::Untyped;
}

/// HELP and TYPE of a family, from its catalogue row. A name without one (the unit tests fail on
/// any such series) still makes a valid scrape, untyped, and its HELP says it is uncatalogued,
/// so the gap shows on the page instead of passing as an ordinary family.
struct FamilyHeader {
  std::string help;
  MetricType type = MetricType::Untyped;
};

FamilyHeader family_header(const std::string& name) {
  const MetricInfo* info = find_metric(name);
  if (info == nullptr) {
    return {"uncatalogued: rdmatop's metric catalogue has no row for " + name + " (a bug)",
            MetricType::Untyped};
  }
  return {std::string(info->help), metric_type(info->kind)};
}

/// Families by name, so samples of one name from many ports land in one family: as
/// prometheus-cpp's MetricFamily (build_metric_families).
class FamilySet {
 public:
  void add(const std::string& name, const Labels& labels, double value) {
    MetricFamily& family = families_[name];
    if (family.name.empty()) {
      family.name = name;
      FamilyHeader header = family_header(name);
      family.help = std::move(header.help);
      family.type = header.type;
    }
    ClientMetric metric;
    metric.label.reserve(labels.size());
    for (const auto& [label, label_value_text] : labels) {
      metric.label.push_back({label, label_value_text});
    }
    switch (family.type) {
      case MetricType::Counter:
        metric.counter.value = value;
        break;
      case MetricType::Gauge:
        metric.gauge.value = value;
        break;
      default:
        metric.untyped.value = value;
        break;
    }
    family.metric.push_back(std::move(metric));
  }

  /// Samples of `name` whose labels are `labels` and then `key_label`, whose value each sample
  /// gives (a raw counter map: one object's labels, then the counter's name).
  class Run {
   public:
    Run(FamilySet& set, const std::string& name, const Labels& labels, const std::string& key_label)
        : set_(set), name_(name), labels_(labels) {
      labels_.emplace_back(key_label, std::string());
    }
    void add(std::string_view key, double value) {
      labels_.back().second = key;  // no allocation once the longest key fits
      set_.add(name_, labels_, value);
    }

   private:
    FamilySet& set_;
    const std::string& name_;
    Labels labels_;
  };

  void add_series(const Series& series) { add(series.name, series.labels, series.value); }
  /// The counters of `counters` that `filter` admits: samples of `name` whose labels are
  /// `labels`, then `key_label` set to the counter's name.
  void add_raw_map(const std::string& name, const Labels& labels, const std::string& key_label,
                   const CounterMap& counters, const RawCounterFilter& filter) {
    const bool ethtool_stats = key_label == "stat";
    Run run(*this, name, labels, key_label);
    for (const auto& [counter, value] : counters) {
      if (filter.admits(counter, ethtool_stats)) run.add(counter, static_cast<double>(value));
    }
  }

  std::vector<MetricFamily> take() {
    std::vector<MetricFamily> out;
    out.reserve(families_.size());
    for (auto& [name, family] : families_) out.push_back(std::move(family));
    return out;
  }

 private:
  std::map<std::string, MetricFamily> families_;
};

/// The same families written straight as text lines (render_metrics_text): no MetricFamily,
/// no label copies, one line appended per sample to its family's text.
class TextFamilySet {
 public:
  /// `cache`: the lines' heads kept from the last page (line_cache.h); null: a cache of this
  /// page's own.
  explicit TextFamilySet(MetricsLineCache* cache = nullptr)
      : cache_(cache != nullptr ? cache : &own_cache_),
        families_(cache_->families()),
        page_(cache_->begin_page()) {}

  void add(const std::string& name, const Labels& labels, double value) {
    TextBuffer& lines = family(name).lines;
    append_sample_head(lines, name, labels);
    append_value_end(lines, value);
  }

  void add_series(const Series& series) {
    // A port's series go to a new family each: the family found once per position in the
    // page's walk, not looked up by name per series (2.5% of a collection, issue 18).
    const MetricsLineCache::SeriesLine kept = cache_->series_line(series_at_++, series);
    if (kept.family == nullptr) kept.family = &family(series.name);
    TextBuffer& lines = on_this_page(*kept.family).lines;
    LineWriter line(lines, kept.head.size() + LineWriter::kMaxValueText + 1);
    line.text(kept.head);
    line.value(series.value);
    line.text('\n');
  }

  /// As FamilySet::add_raw_map, from the heads the cache keeps for the map.
  void add_raw_map(const std::string& name, const Labels& labels, const std::string& key_label,
                   const CounterMap& counters, const RawCounterFilter& filter) {
    const MetricsLineCache::RawRun& run =
        cache_->raw_run(raw_at_++, name, labels, key_label, counters, filter);
    // No family for a map whose counters are all filtered out, as FamilySet makes none.
    if (run.slots.empty()) return;
    LineWriter line(family(name).lines,
                    run.heads.size() + run.slots.size() * (LineWriter::kMaxValueText + 1));
    const std::vector<std::uint64_t>& values = counters.values();
    std::uint32_t begin = 0;
    for (std::size_t k = 0; k < run.slots.size(); ++k) {
      line.text(run.heads.view().substr(begin, run.ends[k] - begin));
      line.counter_value(values[run.slots[k]]);
      line.text('\n');
      begin = run.ends[k];
    }
  }

  /// The families in name order, `more` (already sorted by name) merged in; where a name is in
  /// both, this set's family comes first, as merge_metric_families orders them.
  void write(std::string& out, const std::vector<MetricFamily>& more) const {
    auto next = more.begin();
    for (const auto& [name, family] : families_) {
      if (family.page != page_) continue;  // none of this page's samples
      for (; next != more.end() && next->name < name; ++next) append_family(out, *next);
      out += family.head;
      out += family.lines.view();
    }
    for (; next != more.end(); ++next) append_family(out, *next);
  }

 private:
  using Family = MetricsLineCache::FamilyText;
  Family& family(const std::string& name) {
    // Samples come in runs of one family (a port's series, say): look it up once a run.
    if (last_ == nullptr || last_name_ != name) {
      auto [it, added] = families_.try_emplace(name);
      Family& family = it->second;
      if (added) {
        const FamilyHeader header = family_header(name);
        append_family_head(family.head, name, header.help, header.type);
      }
      last_ = &on_this_page(family);
      last_name_ = name;
    }
    return *last_;
  }
  Family& on_this_page(Family& family) const {
    if (family.page != page_) {  // the first sample of this page: last page's lines go
      family.lines.clear();
      family.page = page_;
    }
    return family;
  }
  static void append_value_end(TextBuffer& lines, double value) {
    LineWriter line(lines, LineWriter::kMaxValueText + 1);
    line.value(value);
    line.text('\n');
  }

  MetricsLineCache own_cache_;
  MetricsLineCache* cache_;
  MetricsLineCache::Families& families_;
  std::uint64_t page_;
  Family* last_ = nullptr;
  std::string last_name_;
  std::size_t series_at_ = 0;  ///< canonical series written so far: the cache's position
  std::size_t raw_at_ = 0;     ///< raw maps written so far
};

double seconds_since_epoch(std::chrono::system_clock::time_point t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}

template <class Families>
void add_canonical_series(const PublishedTick& report, Families& out) {
  for (const TickPort& port : report.ports) {
    for (const SeriesWithRate& s : port.series) out.add_series(s.series);
  }
  // Device- and host-scope configuration series (firmware, devlink health, NUMA node, IRQs,
  // RDMA processes) carry no port: they are in PublishedTick::host_series, not a port's.
  for (const SeriesWithRate& s : report.host_series) out.add_series(s.series);
}

// Raw driver counters keep their source-native name as a label value: the kernel's names are
// opaque strings (spaces, brackets) and differ per driver and version, so they cannot be metric
// names. They are "untyped": most are counters, but some drivers list gauges among them.
template <class Families>
void add_raw_map(const std::string& family, const Labels& base, const std::string& key_label,
                 const CounterMap& counters, const RawCounterFilter& filter, Families& out) {
  out.add_raw_map(family, base, key_label, counters, filter);
}

template <class Families>
void add_raw_counters(const Snapshot& snapshot, const RawCounterFilter& filter, Families& out) {
  for (const DeviceSample& device : snapshot.devices) {
    add_raw_map("rdma_raw_device_hw_counters", {{"device", device.name}}, "counter",
                device.hw_counters, filter, out);
    for (const PortSample& port : device.ports) {
      const Labels base{{"device", device.name}, {"port", std::to_string(port.port)}};
      add_raw_map("rdma_raw_port_hw_counters", base, "counter", port.hw_counters, filter, out);
      add_raw_map("rdma_raw_port_pma_counters", base, "counter", port.counters, filter, out);
    }
  }
  for (const NetdevSample& netdev : snapshot.netdevs) {
    add_raw_map("rdma_raw_ethtool_stats", {{"netdev", netdev.name}}, "stat", netdev.ethtool, filter,
                out);
    add_raw_map("rdma_raw_netdev_statistics", {{"netdev", netdev.name}}, "statistic",
                netdev.statistics, filter, out);
  }
}

template <class Families>
void add_info_metrics(const Snapshot& snapshot, Families& out) {
  for (const DeviceSample& device : snapshot.devices) {
    out.add("rdma_device_info",
            {{"board_id", device.board_id},
             {"device", device.name},
             {"driver", device.driver},
             {"fw_ver", device.fw_ver},
             {"hca_type", device.hca_type},
             {"node_guid", device.node_guid},
             {"pci_address", device.pci_address}},
            1);
    for (const PortSample& port : device.ports) {
      out.add("rdma_port_info",
              {{"device", device.name},
               {"link_layer", port.link_layer},
               {"netdev", port.netdev},
               {"port", std::to_string(port.port)}},
              1);
    }
  }
  for (const NetdevSample& netdev : snapshot.netdevs) {
    const DriverInfo info = netdev.driver.value_or(DriverInfo{});
    out.add("rdma_netdev_info",
            {{"address", netdev.address},
             {"bus_info", info.bus_info},
             {"driver", info.driver},
             {"driver_version", info.version},
             {"firmware_version", info.fw_version},
             {"netdev", netdev.name}},
            1);
  }
}

// Alert-style series, like Prometheus' own ALERTS{alertname, alertstate}: pending and firing
// findings only (a resolved one is not active, so it is absent, as in ALERTS).
template <class Families>
void add_findings(const PublishedTick& report, Families& out) {
  for (const Finding& finding : report.findings) {
    if (finding.state == FindingState::resolved) continue;
    std::map<std::string, std::string> labels;
    for (const auto& [name, value] : finding.labels) {
      if (name != "__name__") labels[name] = value;
    }
    labels["alertname"] = finding.rule;
    labels["severity"] = to_string(finding.severity);
    // Lifetime evidence (history read from totals at the first collection) is never "firing":
    // an alert on rdmatop_finding{state="firing"} must not page on history.
    labels["state"] = state_name(finding);
    Labels sorted(labels.begin(), labels.end());
    out.add("rdmatop_finding", sorted, 1);
    out.add("rdmatop_finding_active_since_timestamp_seconds", std::move(sorted),
            static_cast<double>(finding.active_since) / 1000.0);
  }
}

// Coverage: a rule whose inputs no source provides on this host cannot fire, and a dashboard
// must be able to tell that silence from health.
template <class Families>
void add_rule_coverage(const PublishedTick& report, Families& out) {
  for (const RuleCoverage& c : report.coverage) {
    out.add("rdmatop_rule_evaluable", {{"group", c.group}, {"rule", c.rule}}, c.evaluable ? 1 : 0);
  }
}

template <class Families>
void add_source_status(const Snapshot& snapshot, Families& out) {
  // One (source, target) may be read more than once per tick; it is up only if every read was,
  // and without data only if every read found the subsystem absent.
  struct Merged {
    bool up = true;
    bool no_data = true;
    double seconds = 0;
  };
  std::map<std::pair<std::string, std::string>, Merged> merged;
  for (const SourceStatus& s : snapshot.sources) {
    Merged& m = merged[{s.source, s.target}];
    m.up = m.up && s.state != SourceState::error;
    m.no_data = m.no_data && s.state == SourceState::no_data;
    m.seconds += std::chrono::duration<double>(s.duration).count();
  }
  for (const auto& [key, status] : merged) {
    const Labels labels{{"source", key.first}, {"target", key.second}};
    out.add("rdmatop_source_up", labels, status.up ? 1 : 0);
    out.add("rdmatop_source_no_data", labels, status.no_data ? 1 : 0);
    out.add("rdmatop_source_duration_seconds", labels, status.seconds);
  }
}

template <class Families>
void add_self_metrics(const ExporterView& view, const MetricsOptions& options, Families& out) {
  out.add("rdmatop_build_info", {{"version", options.version}}, 1);
  out.add("rdmatop_collections_total", {}, static_cast<double>(view.poll.polls));
  if (view.process) {
    const ProcessMetrics& p = *view.process;
    out.add("process_cpu_seconds_total", {}, p.cpu_seconds);
    out.add("process_resident_memory_bytes", {}, p.resident_bytes);
    out.add("process_virtual_memory_bytes", {}, p.virtual_bytes);
    if (p.open_fds) {
      out.add("process_open_fds", {}, *p.open_fds);
    }
    out.add("process_max_fds", {}, p.max_fds);
    out.add("process_start_time_seconds", {}, p.start_time_seconds);
  }
  for (const auto& [key, count] : view.poll.source_errors) {
    out.add("rdmatop_source_errors_total", {{"source", key.first}, {"target", key.second}},
            static_cast<double>(count));
  }
  if (view.poll.polls == 0) return;
  out.add("rdmatop_collection_duration_seconds", {}, view.poll.last_poll_duration_seconds);
  out.add("rdmatop_last_collection_timestamp_seconds", {}, view.poll.last_poll_end_unix_seconds);
}

/// Every family of one view but the probes' (probe_metric_families), into `out`.
template <class Families>
void add_families(const ExporterView& view, const MetricsOptions& options, Families& out) {
  add_self_metrics(view, options, out);
  if (view.report == nullptr) return;
  const PublishedTick& report = *view.report;
  add_canonical_series(report, out);
  add_info_metrics(report.snapshot, out);
  add_findings(report, out);
  add_rule_coverage(report, out);
  add_source_status(report.snapshot, out);
  if (options.raw_counters) add_raw_counters(report.snapshot, options.raw_filter, out);
  out.add("rdmatop_snapshot_timestamp_seconds", {}, seconds_since_epoch(report.snapshot.wall));
  out.add("rdmatop_rule_errors", {}, static_cast<double>(report.rule_errors.size()));
}

}  // namespace

void count_source_errors(const Snapshot& snapshot,
                         std::map<std::pair<std::string, std::string>, std::uint64_t>& errors) {
  std::set<std::pair<std::string, std::string>> failed;
  for (const SourceStatus& s : snapshot.sources) {
    errors.try_emplace({s.source, s.target}, 0);
    if (s.state == SourceState::error) failed.insert({s.source, s.target});
  }
  for (const auto& key : failed) ++errors[key];
}

std::vector<MetricFamily> build_metric_families(const ExporterView& view,
                                                const MetricsOptions& options) {
  FamilySet out;
  add_families(view, options, out);
  std::vector<MetricFamily> families = out.take();
  if (view.report != nullptr) merge_metric_families(families, probe_metric_families(*view.report));
  return families;
}

std::string render_metrics_text(const ExporterView& view, const MetricsOptions& options,
                                std::size_t size_hint, MetricsLineCache* cache) {
  TextFamilySet out(cache);
  add_families(view, options, out);
  std::string text;
  text.reserve(size_hint);
  out.write(text, view.report != nullptr ? probe_metric_families(*view.report)
                                         : std::vector<MetricFamily>{});
  return text;
}

std::string render_metrics_page(ExporterView view, const MetricsOptions& options,
                                const ProcessReader& read_process, std::size_t size_hint,
                                MetricsLineCache* cache) {
  if (read_process) {
    if (auto process = read_process()) view.process = *process;
  }
  return render_metrics_text(view, options, size_hint, cache);
}

}  // namespace rdmatop
