// Hand-built PublishedTicks for the TUI tests: ports with chosen series and rates, findings.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "pipeline/tick.h"

namespace rdmatop::tui_test {

struct SeriesSpec {
  std::string name;
  Labels extra;  ///< direction / priority labels (sorted with the port labels by add_port)
  RateState state = RateState::ok;
  double per_second = 0;
  double value = 0;
};

inline Labels sorted_labels(Labels labels) {
  std::sort(labels.begin(), labels.end());
  return labels;
}

/// Adds device `device` (if new) with port `port` and the given series to `report`.
inline void add_port(PublishedTick& report, const std::string& device, std::uint32_t port,
                     const std::string& netdev, const std::string& state,
                     const std::vector<SeriesSpec>& series) {
  auto dev_it = std::find_if(report.snapshot.devices.begin(), report.snapshot.devices.end(),
                             [&](const DeviceSample& d) { return d.name == device; });
  if (dev_it == report.snapshot.devices.end()) {
    DeviceSample dev;
    dev.name = device;
    dev.driver = "mlx5";
    report.snapshot.devices.push_back(dev);
    dev_it = report.snapshot.devices.end() - 1;
  }
  PortSample ps;
  ps.port = port;
  ps.state = state;
  ps.netdev = netdev;
  ps.rate_gbps = 100;
  ps.rate_text = "100 Gb/sec (4X EDR)";
  ps.gid_table_read = true;
  ps.gids = {{3, "0000:0000:0000:0000:0000:ffff:c0a8:6401", "RoCE v2", netdev}};
  ps.hw_counters = {{"np_cnp_sent", 10}};
  dev_it->ports.push_back(ps);
  TickPort pr;
  pr.device_index = static_cast<std::size_t>(dev_it - report.snapshot.devices.begin());
  pr.port_index = dev_it->ports.size() - 1;
  for (const auto& s : series) {
    Labels labels = s.extra;
    labels.emplace_back("device", device);
    labels.emplace_back("port", std::to_string(port));
    Series ser;
    ser.name = s.name;
    ser.labels = sorted_labels(labels);
    ser.value = s.value;
    ser.kind = s.name.size() > 6 && s.name.substr(s.name.size() - 6) == "_total"
                   ? SeriesKind::counter
                   : SeriesKind::gauge;
    pr.series.push_back(SeriesWithRate{ser, Rate{s.state, s.per_second}});
  }
  pr.view = build_port_view(pr.series);  // as build_tick does
  report.ports.push_back(pr);
}

inline Finding make_finding(const std::string& rule, Severity severity, FindingState state,
                            const std::string& device, const std::string& port,
                            const std::string& summary) {
  Finding f;
  f.rule = rule;
  f.severity = severity;
  f.state = state;
  f.labels = sorted_labels({{"alertname", rule}, {"device", device}, {"port", port}});
  f.annotations = {{"summary", summary}, {"remediation", "do the thing"}};
  f.evidence = {Evidence{sorted_labels({{"__name__", "rdma_cnp_sent_total"}, {"device", device}}),
                         42, std::nullopt, 0}};
  return f;
}

}  // namespace rdmatop::tui_test
