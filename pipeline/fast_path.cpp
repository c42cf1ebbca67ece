#include "pipeline/fast_path.h"

#include <algorithm>
#include <set>

#include "collector/normalize/driver_family.h"
#include "collector/normalize/normalizer.h"

namespace rdmatop {

namespace {

constexpr std::string_view kPauseSeconds = "rdma_pfc_pause_seconds_total";
constexpr std::string_view kPauseFrames = "rdma_pfc_pause_frames_total";

NetdevSample* find_netdev(std::vector<NetdevSample>& netdevs, const std::string& name) {
  const auto it = std::find_if(netdevs.begin(), netdevs.end(),
                               [&](const NetdevSample& n) { return n.name == name; });
  return it == netdevs.end() ? nullptr : &*it;
}

}  // namespace

const std::vector<std::string_view>& fast_path_series() {
  static const std::vector<std::string_view> series = {
      kPauseSeconds, kPauseFrames, "rdma_pfc_pause_transitions_total",
      "rdma_priority_packets_total", "rdma_pause_storm_events_total"};
  return series;
}

FastPath::FastPath(EthtoolSource& source, FastPathOptions options)
    : source_(source), options_(options), detector_(options.detector) {}

void FastPath::set_targets(const Snapshot& snapshot, const std::vector<Series>& series) {
  // Which ports have pause time or frames per priority at all, from the full read.
  static const std::vector<std::string_view> pause = {kPauseSeconds, kPauseFrames};
  std::set<std::pair<std::string, std::string>> with_seconds, with_frames;
  for (const Series& s : normalize_subset(snapshot, pause)) {
    auto& set = s.name == kPauseSeconds ? with_seconds : with_frames;
    set.emplace(label_value(s.labels, "device"), label_value(s.labels, "port"));
  }
  skeleton_ = Snapshot{};
  targets_.clear();
  ports_.clear();
  for (const NetdevSample& netdev : snapshot.netdevs) {
    NetdevSample bare;
    bare.name = netdev.name;
    bare.driver = netdev.driver;
    skeleton_.netdevs.push_back(std::move(bare));
  }
  for (const DeviceSample& device : snapshot.devices) {
    DeviceSample bare;
    bare.name = device.name;
    bare.driver = device.driver;
    for (const PortSample& port : device.ports) {
      PortSample bare_port;
      bare_port.port = port.port;
      bare_port.netdev = port.netdev;
      bare.ports.push_back(bare_port);

      fast::FastPathPort watched;
      watched.device = device.name;
      watched.port = port.port;
      watched.netdev = port.netdev;
      const std::pair<std::string, std::string> key{device.name, std::to_string(port.port)};
      watched.measure = with_seconds.contains(key)  ? fast::PauseMeasure::duration
                        : with_frames.contains(key) ? fast::PauseMeasure::frames
                                                    : fast::PauseMeasure::none;
      const NetdevSample* sample = find_netdev(snapshot, port.netdev);
      const DriverFamily family = driver_families(device.driver, sample).netdev;
      std::vector<std::string> names;
      if (sample != nullptr) {
        for (std::string& name : ethtool_raw_names(family, fast_path_series())) {
          if (sample->ethtool.contains(name)) names.push_back(std::move(name));
        }
      }
      if (watched.measure == fast::PauseMeasure::none) {
        if (port.netdev.empty()) {
          watched.reason = "the port has no netdev";
        } else if (sample == nullptr || sample->ethtool.empty()) {
          watched.reason = "no ethtool statistics were read for " + port.netdev;
        } else if (family == DriverFamily::any || family == DriverFamily::rxe ||
                   ethtool_raw_names(family, pause).empty()) {
          watched.reason = "driver " + (device.driver.empty() ? std::string("?") : device.driver) +
                           " has no per-priority PFC counters";
        } else {
          watched.reason = "no per-priority PFC counter in ethtool -S of " + port.netdev +
                           " (PFC off on every priority)";
        }
      } else {
        watched.counters = names.size();
        const bool known = std::any_of(targets_.begin(), targets_.end(),
                                       [&](const Target& t) { return t.netdev == port.netdev; });
        if (!known) targets_.push_back(Target{port.netdev, std::move(names)});
      }
      ports_.push_back(std::move(watched));
    }
    skeleton_.devices.push_back(std::move(bare));
  }
  link_rates_.clear();
  for (const Series& s : series) {
    if (s.name == "rdma_port_rate_bytes_per_second") link_rates_.push_back(s);
  }
}

bool FastPath::poll(std::int64_t t_us) {
  for (const Target& target : targets_) {
    NetdevSample* netdev = find_netdev(skeleton_.netdevs, target.netdev);
    if (netdev == nullptr) continue;
    ++reads_;
    auto read = source_.stats_subset(target.netdev, target.names);
    // A failed read leaves the netdev without counters this poll: absent, never zero.
    netdev->ethtool = read ? std::move(read).value() : CounterMap{};
  }
  std::vector<Series> series = normalize_subset(skeleton_, fast_path_series());
  series.insert(series.end(), link_rates_.begin(), link_rates_.end());
  return detector_.observe(series, t_us);
}

}  // namespace rdmatop
