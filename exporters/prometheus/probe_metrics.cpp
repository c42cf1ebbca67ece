#include "exporters/prometheus/probe_metrics.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "collector/normalize/metric_catalogue.h"

namespace rdmatop {

namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

ClientMetric metric_with(const Labels& labels) {
  ClientMetric metric;
  for (const auto& [name, value] : labels) metric.label.push_back({name, value});
  return metric;
}

/// The bound of a bucket series; nullopt for a label the normalizer never writes.
std::optional<double> parse_le(const std::string& text) {
  if (text == "+Inf") return std::numeric_limits<double>::infinity();
  double value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || !std::isfinite(value)) return std::nullopt;
  return value;
}

/// One stream's histogram while its _bucket/_sum/_count series are gathered.
struct HistogramParts {
  std::vector<ClientMetric::Bucket> buckets;
  std::optional<double> sum;
  std::optional<double> count;
};

Labels without(const Labels& labels, const std::string& name) {
  Labels out;
  for (const auto& label : labels) {
    if (label.first != name) out.push_back(label);
  }
  return out;
}

}  // namespace

std::vector<MetricFamily> probe_metric_families(const PublishedTick& report) {
  std::map<std::string, MetricFamily> families;
  std::map<std::string, std::map<Labels, HistogramParts>> histograms;
  for (const SeriesWithRate& s : report.probe_series) {
    // tick.cpp files a series here by its catalogue row, so every one has a row.
    const MetricInfo* info = find_metric(s.series.name);
    if (info == nullptr) continue;
    const std::string name(info->name);
    MetricFamily& family = families[name];
    if (family.name.empty()) {
      family.name = name;
      family.help = std::string(info->help);
      family.type = info->kind == MetricKind::counter ? MetricType::Counter
                    : info->kind == MetricKind::gauge ? MetricType::Gauge
                                                      : MetricType::Histogram;
    }
    if (info->kind != MetricKind::histogram) {
      ClientMetric metric = metric_with(s.series.labels);
      if (info->kind == MetricKind::counter) {
        metric.counter.value = s.series.value;
      } else {
        metric.gauge.value = s.series.value;
      }
      family.metric.push_back(std::move(metric));
      continue;
    }
    const std::string_view suffix = std::string_view(s.series.name).substr(name.size());
    if (suffix == "_bucket") {
      const std::optional<double> le = parse_le(label_value(s.series.labels, "le"));
      if (!le) continue;
      HistogramParts& parts = histograms[name][without(s.series.labels, "le")];
      parts.buckets.push_back({static_cast<std::uint64_t>(s.series.value), *le});
    } else if (suffix == "_sum") {
      histograms[name][s.series.labels].sum = s.series.value;
    } else if (suffix == "_count") {
      histograms[name][s.series.labels].count = s.series.value;
    }
  }
  for (auto& [name, streams] : histograms) {
    MetricFamily& family = families[name];
    for (auto& [labels, parts] : streams) {
      // A histogram without its count or sum is not one (the normalizer always writes both).
      if (!parts.sum || !parts.count) continue;
      std::sort(parts.buckets.begin(), parts.buckets.end(),
                [](const auto& a, const auto& b) { return a.upper_bound < b.upper_bound; });
      ClientMetric metric = metric_with(labels);
      metric.histogram.sample_count = static_cast<std::uint64_t>(*parts.count);
      metric.histogram.sample_sum = *parts.sum;
      metric.histogram.bucket = std::move(parts.buckets);
      family.metric.push_back(std::move(metric));
    }
  }
  std::vector<MetricFamily> out;
  out.reserve(families.size());
  for (auto& [name, family] : families) {
    if (!family.metric.empty()) out.push_back(std::move(family));
  }
  return out;
}

void merge_metric_families(std::vector<MetricFamily>& families, std::vector<MetricFamily> more) {
  const auto by_name = [](const MetricFamily& a, const MetricFamily& b) { return a.name < b.name; };
  const auto middle = static_cast<std::ptrdiff_t>(families.size());
  families.insert(families.end(), std::make_move_iterator(more.begin()),
                  std::make_move_iterator(more.end()));
  std::inplace_merge(families.begin(), families.begin() + middle, families.end(), by_name);
}

}  // namespace rdmatop
