#include "pipeline/tick.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "collector/normalize/metric_catalogue.h"
#include "collector/normalize/normalizer.h"
#include "collector/parse/gid.h"
#include "rules/diagnoser.h"

namespace rdmatop {

namespace {

// Rates older than this many intervals are stale; a report's two snapshots are one interval
// apart, so anything beyond a few intervals means the clock jumped or a read hung.
constexpr double kStaleIntervals = 3.0;
constexpr auto kMinStaleAfter = std::chrono::seconds(10);

std::optional<CounterPoint> point_of(const Series& s, std::chrono::steady_clock::time_point at) {
  return CounterPoint{s.value, at};
}

bool same_series(const Series& a, const Series& b) {
  return a.name == b.name && a.labels == b.labels;
}

/// The previous tick's series for each series of this tick. Both lists come from normalize(),
/// sorted by series_key with no duplicates, so a cursor walking the previous list finds the
/// match in O(1) nearly always; the key map is built only when the cursor misses (a series
/// appeared or vanished), and then gives exactly what a lookup by key would.
class PreviousSeries {
 public:
  explicit PreviousSeries(const std::vector<Series>* before) : before_(before) {}

  const Series* find(const Series& s) {
    if (before_ == nullptr) return nullptr;
    if (cursor_ < before_->size() && same_series((*before_)[cursor_], s)) {
      return &(*before_)[cursor_++];
    }
    if (by_key_.empty()) {
      // emplace keeps the first of duplicate keys (normalize() leaves none).
      for (std::size_t i = 0; i < before_->size(); ++i) {
        const Series& b = (*before_)[i];
        by_key_.emplace(series_key(b.name, b.labels), i);
      }
    }
    const auto it = by_key_.find(series_key(s.name, s.labels));
    if (it == by_key_.end()) return nullptr;
    cursor_ = it->second + 1;
    return &(*before_)[it->second];
  }

 private:
  const std::vector<Series>* before_;
  std::size_t cursor_ = 0;
  std::unordered_map<std::string, std::size_t> by_key_;
};

/// The TickPorts of each device name and port number: built once per report. A device name
/// listed twice maps to all its ports (one series key, so one series, serves both).
class PortIndex {
 public:
  void add(const std::string& device, std::string port, std::size_t report_index) {
    by_device_[device].push_back(Slot{std::move(port), report_index});
  }

  template <typename Fn>
  void for_each_port(const std::string& device, const std::string& port, Fn&& fn) const {
    const auto it = by_device_.find(device);
    if (it == by_device_.end()) return;
    for (const Slot& slot : it->second) {
      if (slot.port == port) fn(slot.report_index);
    }
  }

  /// The first TickPort that `series`' device and port labels name, or kPortByLabels if none.
  std::uint32_t first_port_of(const Series& series) const {
    std::uint32_t first = kPortByLabels;
    for_each_port(label_value(series.labels, "device"), label_value(series.labels, "port"),
                  [&](std::size_t i) {
                    if (first == kPortByLabels) first = static_cast<std::uint32_t>(i);
                  });
    return first;
  }

 private:
  struct Slot {
    std::string port;
    std::size_t report_index;
  };
  std::unordered_map<std::string, std::vector<Slot>> by_device_;
};

}  // namespace

PublishedTick build_tick(const Observation* first, Observation last, std::vector<Finding> findings,
                         std::vector<std::string> rule_errors, PortViews views) {
  PublishedTick report;
  report.findings = std::move(findings);
  report.rule_errors = std::move(rule_errors);
  if (first != nullptr) {
    report.interval_seconds =
        std::chrono::duration<double>(last.snapshot.taken - first->snapshot.taken).count();
  }
  const auto stale_after = std::max<std::chrono::nanoseconds>(
      kMinStaleAfter,
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::duration<double>(report.interval_seconds * kStaleIntervals)));

  std::vector<Series> now = std::move(last.series);
  report.snapshot = std::move(last.snapshot);
  const Snapshot& snap = report.snapshot;
  PreviousSeries previous(first == nullptr ? nullptr : &first->series);
  const auto rate_of = [&](const Series& s) {
    // Looked up for gauges too, so the cursor keeps step with both lists.
    const Series* before = previous.find(s);
    if (s.kind != SeriesKind::counter || first == nullptr) return Rate{};
    // Another raw counter now feeds this series (its own vanished and a fallback row of the
    // counter table took over): the two counters' difference is not a rate.
    if (before != nullptr && before->origin != s.origin) return Rate{RateState::reset, 0};
    const std::optional<CounterPoint> prev =
        before == nullptr ? std::nullopt : point_of(*before, first->snapshot.taken);
    return compute_rate(prev, point_of(s, snap.taken), s.wrap_modulus, stale_after,
                        s.saturation_value);
  };
  PortIndex port_index;
  for (std::size_t d = 0; d < snap.devices.size(); ++d) {
    const DeviceSample& dev = snap.devices[d];
    for (std::size_t p = 0; p < dev.ports.size(); ++p) {
      const PortSample& port = dev.ports[p];
      TickPort pr;
      pr.device_index = d;
      pr.port_index = p;
      for (std::size_t n = 0; n < snap.netdevs.size(); ++n) {
        if (!port.netdev.empty() && snap.netdevs[n].name == port.netdev) pr.netdev_index = n;
      }
      pr.roce_v2_gid = first_routable_roce_v2(port.gids);
      port_index.add(dev.name, std::to_string(port.port), report.ports.size());
      report.ports.push_back(std::move(pr));
    }
  }
  // Where the series of each port go: to it, and to the ports of a device listed twice.
  std::vector<std::vector<std::size_t>> ports_sharing(report.ports.size());
  for (std::size_t t = 0; t < report.ports.size(); ++t) {
    const TickPort& pr = report.ports[t];
    const DeviceSample& dev = snap.devices[pr.device_index];
    port_index.for_each_port(dev.name, std::to_string(dev.ports[pr.port_index].port),
                             [&](std::size_t i) { ports_sharing[t].push_back(i); });
  }
  // The port the normalizer made each series for; the labels tell the others' (and every
  // series' of an Observation made without them).
  const std::vector<std::uint32_t> series_ports =
      last.series_ports.size() == now.size()
          ? std::move(last.series_ports)
          : std::vector<std::uint32_t>(now.size(), kPortByLabels);
  // Most series are a port's, spread about evenly over the ports: each port's list is made
  // that long at once instead of growing (and moving its series) eight times.
  for (TickPort& port : report.ports) port.series.reserve(now.size() / report.ports.size());
  static const std::vector<std::size_t> kNoPorts;
  // `now` is sorted by series key, so one name's series are neighbours: the catalogue is
  // asked once per name, not once per series.
  std::string_view info_of;
  const MetricInfo* info = nullptr;
  for (std::size_t k = 0; k < now.size(); ++k) {
    Series& s = now[k];
    const Rate rate = rate_of(s);
    if (info == nullptr || s.name != info_of) {
      info = find_metric(s.name);
      info_of = info != nullptr ? std::string_view(info->name) : std::string_view();
    }
    // The catalogue's scope says where a series is filed: the prober's beside the ports, the
    // device- and host-scope configuration (no port to file it under) in host_series.
    if (info != nullptr) {
      if (is_probe_metric(*info)) report.probe_series.push_back(SeriesWithRate{s, rate});
      if (info->scope == MetricScope::device || info->scope == MetricScope::host) {
        report.host_series.push_back(SeriesWithRate{s, rate});
      }
    }
    const std::uint32_t port =
        series_ports[k] != kPortByLabels ? series_ports[k] : port_index.first_port_of(s);
    const std::vector<std::size_t>& ports_of_series =
        port < ports_sharing.size() ? ports_sharing[port] : kNoPorts;
    for (std::size_t i = 0; i < ports_of_series.size(); ++i) {
      std::vector<SeriesWithRate>& dest = report.ports[ports_of_series[i]].series;
      // `now` is this function's own: the last port taking a series gets it moved.
      if (i + 1 == ports_of_series.size()) {
        dest.push_back(SeriesWithRate{std::move(s), rate});
      } else {
        dest.push_back(SeriesWithRate{s, rate});
      }
    }
  }
  for (TickPort& port : report.ports) {
    port.view = views == PortViews::build ? build_port_view(port.series) : PortView::none();
  }
  return report;
}

ReportExit report_exit_code(const PublishedTick& report) {
  if (report.snapshot.devices.empty()) return ReportExit::no_data;
  // Pending counts: a report watches for seconds, so a rule's `for` rarely elapses in it, and
  // a condition that is true right now is what the person running it needs to know. History
  // (lifetime evidence) counts only when there is nothing else: a single snapshot has no
  // rates, and then the totals are all the report can speak from.
  Severity worst = worst_active_severity(report.findings);
  if (report.interval_seconds <= 0)
    worst = std::max(worst, worst_lifetime_severity(report.findings));
  switch (worst) {
    case Severity::critical:
      return ReportExit::critical;
    case Severity::warning:
      return ReportExit::warning;
    case Severity::info:
    case Severity::none:
      break;
  }
  return ReportExit::healthy;
}

}  // namespace rdmatop
