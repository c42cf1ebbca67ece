#include "collector/normalize/probe_series.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <utility>

namespace rdmatop {

namespace {

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
