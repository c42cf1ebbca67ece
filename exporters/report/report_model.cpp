#include "exporters/report/report_model.h"

#include <algorithm>
#include <map>

#include "collector/normalize/host_config_series.h"
#include "collector/normalize/normalizer.h"
#include "collector/normalize/probe_series.h"
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

bool belongs_to(const Series& s, const DeviceSample& dev, const PortSample& port) {
  return label_value(s.labels, "device") == dev.name &&
         label_value(s.labels, "port") == std::to_string(port.port);
}

}  // namespace

Report build_report(const Observation* first, Observation last, std::vector<Finding> findings,
                    std::vector<std::string> rule_errors) {
  Report report;
  report.findings = std::move(findings);
  report.rule_errors = std::move(rule_errors);
  std::map<std::string, const Series*> before_by_key;
  if (first != nullptr) {
    for (const auto& s : first->series) before_by_key.emplace(series_key(s.name, s.labels), &s);
    report.interval_seconds =
        std::chrono::duration<double>(last.snapshot.taken - first->snapshot.taken).count();
  }
  const auto stale_after = std::max<std::chrono::nanoseconds>(
      kMinStaleAfter,
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::duration<double>(report.interval_seconds * kStaleIntervals)));

  const std::vector<Series> now = std::move(last.series);
  report.snapshot = std::move(last.snapshot);
  const Snapshot& snap = report.snapshot;
  const auto rate_of = [&](const Series& s) {
    if (s.kind != SeriesKind::counter || first == nullptr) return Rate{};
    const auto it = before_by_key.find(series_key(s.name, s.labels));
    const std::optional<CounterPoint> prev =
        it == before_by_key.end() ? std::nullopt : point_of(*it->second, first->snapshot.taken);
    return compute_rate(prev, point_of(s, snap.taken), s.wrap_modulus, stale_after);
  };
  for (std::size_t d = 0; d < snap.devices.size(); ++d) {
    const DeviceSample& dev = snap.devices[d];
    for (std::size_t p = 0; p < dev.ports.size(); ++p) {
      const PortSample& port = dev.ports[p];
      PortReport pr;
      pr.device_index = d;
      pr.port_index = p;
      for (std::size_t n = 0; n < snap.netdevs.size(); ++n) {
        if (!port.netdev.empty() && snap.netdevs[n].name == port.netdev) pr.netdev_index = n;
      }
      pr.roce_v2_gid = first_routable_roce_v2(port.gids);
      for (const Series& s : now) {
        if (belongs_to(s, dev, port)) pr.series.push_back(SeriesWithRate{s, rate_of(s)});
      }
      report.ports.push_back(std::move(pr));
    }
  }
  for (const Series& s : now) {
    if (find_probe_metric(s.name) != nullptr) {
      report.probe_series.push_back(SeriesWithRate{s, rate_of(s)});
    }
    if (find_host_config_metric(s.name) != nullptr && label_value(s.labels, "port").empty()) {
      report.host_series.push_back(SeriesWithRate{s, rate_of(s)});
    }
  }
  return report;
}

ReportExit report_exit_code(const Report& report) {
  if (report.snapshot.devices.empty()) return ReportExit::no_data;
  // Pending counts: a report watches for seconds, so a rule's `for` rarely elapses in it, and
  // a condition that is true right now is what the person running it needs to know.
  switch (worst_active_severity(report.findings)) {
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
