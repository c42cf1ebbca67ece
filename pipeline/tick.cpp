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

/// Which TickPorts a series belongs to, by its device and port labels: built once per
/// report, so each series is placed with two label reads and a hash lookup instead of being
/// compared with every port of the host. A device name listed twice maps to all its ports.
class PortIndex {
 public:
  void add(const DeviceSample& dev, const PortSample& port, std::size_t report_index) {
    by_device_[dev.name].push_back(Slot{std::to_string(port.port), report_index});
  }

  template <typename Fn>
  void for_each_port_of(const Series& s, Fn&& fn) {
    const std::string& device = label_value(s.labels, "device");
    // Series come sorted by name, then labels: one device's come in runs, so its slots are
    // looked up again only when the device changes (the hash lookups were a sixth of
    // build_tick on the 16-port host, bench/README.md "Session 27").
    if (slots_ == nullptr || device != slots_device_) {
      const auto it = by_device_.find(device);
      slots_ = it != by_device_.end() ? &it->second : &kNoSlots;
      slots_device_ = device;
    }
    if (slots_->empty()) return;
    const std::string& port = label_value(s.labels, "port");
    for (const Slot& slot : *slots_) {
      if (slot.port == port) fn(slot.report_index);
    }
  }

 private:
  struct Slot {
    std::string port;
    std::size_t report_index;
  };
  inline static const std::vector<Slot> kNoSlots;
  std::unordered_map<std::string, std::vector<Slot>> by_device_;
  const std::vector<Slot>* slots_ = nullptr;  ///< by_device_'s entry of slots_device_
  std::string slots_device_;
};

}  // namespace

PublishedTick build_tick(const Observation* first, Observation last, std::vector<Finding> findings,
                         std::vector<std::string> rule_errors) {
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
      port_index.add(dev, port, report.ports.size());
      report.ports.push_back(std::move(pr));
    }
  }
  // Most series are a port's, spread about evenly over the ports: each port's list is made
  // that long at once instead of growing (and moving its series) eight times.
  for (TickPort& port : report.ports) port.series.reserve(now.size() / report.ports.size());
  std::vector<std::size_t> ports_of_series;
  // `now` is sorted by series key, so one name's series are neighbours: the catalogue is
  // asked once per name, not once per series.
  std::string_view info_of;
  const MetricInfo* info = nullptr;
  for (Series& s : now) {
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
    ports_of_series.clear();
    port_index.for_each_port_of(s, [&](std::size_t i) { ports_of_series.push_back(i); });
    for (std::size_t k = 0; k < ports_of_series.size(); ++k) {
      std::vector<SeriesWithRate>& dest = report.ports[ports_of_series[k]].series;
      // `now` is this function's own: the last port taking a series gets it moved.
      if (k + 1 == ports_of_series.size()) {
        dest.push_back(SeriesWithRate{std::move(s), rate});
      } else {
        dest.push_back(SeriesWithRate{s, rate});
      }
    }
  }
  for (TickPort& port : report.ports) port.view = build_port_view(port.series);
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
