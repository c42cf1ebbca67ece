#include "pipeline/probe_streams.h"

#include <fmt/format.h>

#include <string>

#include "collector/normalize/probe_series.h"

namespace rdmatop {

namespace {

Rate rate_of(const PublishedTick& report, const std::string& name, const Labels& stream) {
  for (const SeriesWithRate& s : report.probe_series) {
    if (s.series.name != name) continue;
    // The stream's labels plus at most the series' own extra label (scope).
    bool match = true;
    for (const auto& [label, value] : stream)
      match = match && label_value(s.series.labels, label) == value;
    if (match && s.series.labels.size() <= stream.size() + 1) return s.rate;
  }
  return Rate{};
}

}  // namespace

std::vector<ProbeStreamView> probe_stream_views(const PublishedTick& report) {
  const std::vector<ProbeTargetSample>& probes = report.snapshot.probes;
  std::vector<ProbeStreamView> out;
  for (const ProbeTargetSample& p : probes) {
    const Labels stream = probe_stream_labels(p);
    ProbeStreamView v;
    v.sample = &p;
    v.sent_rate = rate_of(report, "rdma_probe_sent_total", stream);
    v.timeout_rate = rate_of(report, "rdma_probe_timeouts_total", stream);
    if (p.retransmits) v.retransmit_rate = rate_of(report, "rdma_probe_retransmits_total", stream);
    if (rate_has_value(v.sent_rate) && rate_has_value(v.timeout_rate) &&
        v.sent_rate.per_second > 0) {
      v.interval_loss = v.timeout_rate.per_second / v.sent_rate.per_second;
    }
    if (p.transport != "tcp") {
      for (const ProbeTargetSample& other : probes) {
        if (other.transport == "tcp" && other.target == p.target) v.tcp_baseline = &other;
      }
    }
    out.push_back(v);
  }
  return out;
}

std::optional<double> shown_loss(const ProbeStreamView& view) {
  if (view.interval_loss) return view.interval_loss;
  if (view.sample->sent == 0) return std::nullopt;
  return static_cast<double>(view.sample->timed_out) / static_cast<double>(view.sample->sent);
}

std::optional<double> p50_vs_tcp(const ProbeStreamView& view) {
  const ProbeTargetSample* tcp = view.tcp_baseline;
  if (tcp == nullptr || !tcp->window || !view.sample->window || tcp->window->p50 <= 0) {
    return std::nullopt;
  }
  return view.sample->window->p50 / tcp->window->p50;
}

std::string stream_name(const ProbeTargetSample& sample) {
  return sample.traffic_class ? fmt::format("{} tc={}", sample.transport, *sample.traffic_class)
                              : sample.transport;
}

}  // namespace rdmatop
