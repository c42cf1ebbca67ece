// The ONE metric catalogue: every metric family rdmatop publishes, with its kind, unit, scope,
// labels and help text. The counter table's rows, the host-config and probe derivations and the
// normalizer's gauges emit series named here; the exporter takes every HELP line and TYPE from
// it (its own raw, info, finding and self families included); the port view's figures name
// rows of it and take their unit from it; docs/metrics.md documents every row. Unit tests keep
// all of them in step: a series with no row fails a test, never a scrape.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace rdmatop {

/// The Prometheus type of a family. A histogram is emitted as the series `<name>_bucket{le}`,
/// `<name>_sum` and `<name>_count` (all counters), as Prometheus lays histograms out.
enum class MetricKind : std::uint8_t { counter, gauge, histogram, untyped };

/// What one series of the family describes, which decides the labels it carries implicitly.
enum class MetricScope : std::uint8_t {
  port,          ///< an RDMA port: device, port and (when it has one) netdev
  device,        ///< an RDMA device: device
  host,          ///< the host: no implied label
  probe_stream,  ///< one stream of the active prober: target, transport, group, tclass
  prober,        ///< the active prober itself: no implied label
  exporter,      ///< made by the exporter from the tick, not a canonical series: labels listed
};

struct MetricInfo {
  std::string_view name;
  MetricKind kind = MetricKind::counter;
  std::string_view unit;  ///< "bytes", "seconds", "packets", "events", "boolean", "1", ...
  MetricScope scope = MetricScope::port;
  std::string_view labels;  ///< labels beyond the scope's, comma-separated ("" = none)
  std::string_view help;    ///< the HELP line
};

/// Every family, in documentation order (docs/metrics.md).
std::span<const MetricInfo> metric_catalogue();

/// The family of a series name, or nullptr: the name itself, or for a histogram its
/// `_bucket`, `_sum` and `_count` series ("rdma_probe_rtt_seconds_bucket" -> the histogram).
const MetricInfo* find_metric(std::string_view series_name);

/// True for the families the active prober feeds (probe_stream and prober scope).
bool is_probe_metric(const MetricInfo& info);

const char* to_string(MetricKind kind);
const char* to_string(MetricScope scope);

}  // namespace rdmatop
