#include "collector/normalize/probe_series.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <utility>

namespace rdmatop {

namespace {

using T = ProbeMetricType;

// Stream labels (target, group, transport, tclass) are implied on every per-stream family;
// `labels` lists the extra ones. rdmatop_prober_* describe the prober itself: no labels.
constexpr ProbeMetricInfo kProbeMetrics[] = {
    {"rdma_probe_sent_total", T::counter, "probes", "", "Probes sent on the stream."},
    {"rdma_probe_answered_total", T::counter, "probes", "",
     "Probes answered by the responder (each contributes one RTT sample)."},
    {"rdma_probe_timeouts_total", T::counter, "probes", "",
     "Probes not answered within the probe timeout (lost, or the peer stalled)."},
    {"rdma_probe_connect_failures_total", T::counter, "events", "",
     "Address/route resolution, connect or handshake failures towards the target."},
    {"rdma_probe_qp_errors_total", T::counter, "events", "",
     "Probe QPs that moved to the error state (each is then reconnected)."},
    {"rdma_probe_wc_errors_total", T::counter, "completions", "status",
     "Probe work completions with an error status (ibv_wc_status_str text)."},
    {"rdma_probe_retransmits_total", T::counter, "events", "scope",
     "Transport retransmits attributed to the stream: its own QP counter (scope=qp) or the "
     "port's counter over the probe's lifetime (scope=port, shared with other traffic)."},
    {"rdma_probe_rtt_seconds", T::histogram, "seconds", "le",
     "Round-trip time of answered probes (cumulative histogram)."},
    {"rdma_probe_rtt_quantile_seconds", T::gauge, "seconds", "window_quantile",
     "RTT quantile over the probes answered since the previous sample (0 = min, 1 = max); "
     "absent when none was answered."},
    {"rdma_probe_up", T::gauge, "boolean", "",
     "1 when the stream was connected to its target at the sample, else 0."},
    {"rdmatop_prober_cpu_seconds_total", T::counter, "seconds", "",
     "User plus system CPU time used by the prober's threads."},
    {"rdmatop_prober_qps", T::gauge, "QPs", "", "Queue pairs the prober holds."},
    {"rdmatop_prober_registered_bytes", T::gauge, "bytes", "",
     "Memory the prober has registered with RDMA devices."},
    {"rdmatop_prober_targets", T::gauge, "targets", "", "Targets the prober is configured with."},
};

constexpr std::array<std::string_view, 3> kHistogramSuffixes = {"_bucket", "_sum", "_count"};

struct Quantile {
  const char* label;
  double RttSummary::*field;
};

// min and max are the 0 and 1 quantiles, so one family carries the whole window summary.
constexpr std::array<Quantile, 6> kQuantiles = {{{"0", &RttSummary::min},
                                                 {"0.5", &RttSummary::p50},
                                                 {"0.9", &RttSummary::p90},
                                                 {"0.99", &RttSummary::p99},
                                                 {"0.999", &RttSummary::p999},
                                                 {"1", &RttSummary::max}}};

Labels with_label(Labels labels, std::string name, std::string value) {
  labels.emplace_back(std::move(name), std::move(value));
  std::sort(labels.begin(), labels.end());
  return labels;
}

class Sink {
 public:
  explicit Sink(std::vector<Series>& out) : out_(out) {}
  void add(std::string_view name, Labels labels, SeriesKind kind, double value,
           std::string_view origin) {
    if (!std::isfinite(value)) return;  // never publish NaN or infinity
    out_.push_back(
        Series{std::string(name), std::move(labels), kind, value, 0, 0, std::string(origin)});
  }

 private:
  std::vector<Series>& out_;
};

/// Bucket bounds must be finite and strictly increasing and the counts cumulative, or the
/// histogram would be rejected by Prometheus; a prober that sends anything else gets no buckets
/// (the _count and _sum still hold).
bool valid_buckets(const ProbeTargetSample& p) {
  if (p.bucket_upper_seconds.size() != p.bucket_counts.size()) return false;
  for (std::size_t i = 0; i < p.bucket_upper_seconds.size(); ++i) {
    if (!std::isfinite(p.bucket_upper_seconds[i])) return false;
    if (p.bucket_counts[i] > p.answered) return false;
    if (i > 0 && (p.bucket_upper_seconds[i] <= p.bucket_upper_seconds[i - 1] ||
                  p.bucket_counts[i] < p.bucket_counts[i - 1]))
      return false;
  }
  return true;
}

void add_stream(const ProbeTargetSample& p, Sink& sink) {
  const Labels labels = probe_stream_labels(p);
  constexpr SeriesKind C = SeriesKind::counter;
  const auto count = [](std::uint64_t v) { return static_cast<double>(v); };
  sink.add("rdma_probe_sent_total", labels, C, count(p.sent), "probe/sent");
  sink.add("rdma_probe_answered_total", labels, C, count(p.answered), "probe/answered");
  sink.add("rdma_probe_timeouts_total", labels, C, count(p.timed_out), "probe/timed_out");
  sink.add("rdma_probe_connect_failures_total", labels, C, count(p.connect_failures),
           "probe/connect_failures");
  sink.add("rdma_probe_qp_errors_total", labels, C, count(p.qp_errors), "probe/qp_errors");
  for (const auto& [status, n] : p.wc_errors) {
    sink.add("rdma_probe_wc_errors_total", with_label(labels, "status", status), C, count(n),
             "probe/wc_errors");
  }
  // Absent when the prober could not attribute retransmits (absent is not zero).
  if (p.retransmits) {
    sink.add("rdma_probe_retransmits_total", with_label(labels, "scope", retransmit_scope(p)), C,
             count(*p.retransmits), "probe/retransmits");
  }
  if (valid_buckets(p)) {
    for (std::size_t i = 0; i < p.bucket_upper_seconds.size(); ++i) {
      sink.add("rdma_probe_rtt_seconds_bucket",
               with_label(labels, "le", format_le(p.bucket_upper_seconds[i])), C,
               count(p.bucket_counts[i]), "probe/rtt_histogram");
    }
  }
  sink.add("rdma_probe_rtt_seconds_bucket",
           with_label(labels, "le", format_le(std::numeric_limits<double>::infinity())), C,
           count(p.answered), "probe/answered");
  sink.add("rdma_probe_rtt_seconds_sum", labels, C, p.rtt_sum_seconds, "probe/rtt_sum");
  sink.add("rdma_probe_rtt_seconds_count", labels, C, count(p.answered), "probe/answered");
  if (p.window && p.window->count > 0) {
    for (const Quantile& q : kQuantiles) {
      sink.add("rdma_probe_rtt_quantile_seconds", with_label(labels, "window_quantile", q.label),
               SeriesKind::gauge, (*p.window).*q.field, "probe/window");
    }
  }
  sink.add("rdma_probe_up", labels, SeriesKind::gauge, p.connected ? 1 : 0, "probe/connected");
}

}  // namespace

std::span<const ProbeMetricInfo> probe_metric_infos() {
  return kProbeMetrics;
}

const ProbeMetricInfo* find_probe_metric(std::string_view series_name) {
  for (const ProbeMetricInfo& m : kProbeMetrics) {
    if (m.name == series_name) return &m;
    if (m.type != T::histogram || !series_name.starts_with(m.name)) continue;
    const std::string_view suffix = series_name.substr(m.name.size());
    if (std::find(kHistogramSuffixes.begin(), kHistogramSuffixes.end(), suffix) !=
        kHistogramSuffixes.end())
      return &m;
  }
  return nullptr;
}

std::string format_le(double upper_bound) {
  if (std::isinf(upper_bound)) return upper_bound > 0 ? "+Inf" : "-Inf";
  if (std::isnan(upper_bound)) return "NaN";
  // printf's %g choice (what prometheus-cpp's text format and Go's 'g' both follow): scientific
  // only for exponents below -4 or of 16 and more, so 1e-4 is "0.0001" and 1e-5 "1e-05".
  const int exponent =
      upper_bound == 0 ? 0 : static_cast<int>(std::floor(std::log10(std::fabs(upper_bound))));
  const auto format =
      exponent < -4 || exponent >= 16 ? std::chars_format::scientific : std::chars_format::fixed;
  std::array<char, 400> buffer{};
  const auto [end, ec] =
      std::to_chars(buffer.data(), buffer.data() + buffer.size(), upper_bound, format);
  if (ec != std::errc()) return "NaN";
  return std::string(buffer.data(), end);
}

std::string retransmit_scope(const ProbeTargetSample& probe) {
  return probe.retransmit_scope.empty() ? "port" : probe.retransmit_scope;
}

Labels probe_stream_labels(const ProbeTargetSample& probe) {
  Labels labels;
  if (!probe.group.empty()) labels.emplace_back("group", probe.group);
  labels.emplace_back("target", probe.target);
  if (probe.traffic_class) labels.emplace_back("tclass", std::to_string(*probe.traffic_class));
  labels.emplace_back("transport", probe.transport);
  return labels;  // already in name order
}

void add_probe_series(const Snapshot& snapshot, std::vector<Series>& out) {
  Sink sink(out);
  for (const ProbeTargetSample& probe : snapshot.probes) add_stream(probe, sink);
  if (!snapshot.prober) return;
  const ProberCost& cost = *snapshot.prober;
  sink.add("rdmatop_prober_cpu_seconds_total", {}, SeriesKind::counter, cost.cpu_seconds,
           "prober/cpu");
  sink.add("rdmatop_prober_qps", {}, SeriesKind::gauge, cost.qps, "prober/qps");
  sink.add("rdmatop_prober_registered_bytes", {}, SeriesKind::gauge,
           static_cast<double>(cost.registered_bytes), "prober/registered_bytes");
  sink.add("rdmatop_prober_targets", {}, SeriesKind::gauge, cost.targets, "prober/targets");
}

}  // namespace rdmatop
