#include "collector/vanished_tracker.h"

#include <string_view>
#include <vector>

namespace rdmatop {
namespace {

// A status lists the first few missing names and counts the rest: a whole hw_counters/
// directory is a hundred names, and the message is read by people.
constexpr std::size_t kNamesShown = 5;

void add_names(std::set<std::string>& into, std::string_view prefix, const CounterMap& counters) {
  for (const auto& [name, value] : counters) into.insert(std::string(prefix) + name);
}

std::string describe_missing(const std::vector<std::string>& missing) {
  std::string message = "read at an earlier tick, missing now: ";
  for (std::size_t i = 0; i < missing.size() && i < kNamesShown; ++i) {
    if (i > 0) message += ", ";
    message += missing[i];
  }
  if (missing.size() > kNamesShown) {
    message += " and " + std::to_string(missing.size() - kNamesShown) + " more";
  }
  return message;
}

}  // namespace

std::map<std::string, std::set<std::string>> inventory_of(const Snapshot& snapshot) {
  std::map<std::string, std::set<std::string>> inventory;
  std::set<std::string>& host = inventory[""];
  for (const DeviceSample& device : snapshot.devices) {
    host.insert("class/infiniband/" + device.name);
    std::set<std::string>& dev = inventory[device.name];
    add_names(dev, "hw_counters/", device.hw_counters);
    for (const PortSample& port : device.ports) {
      dev.insert("ports/" + std::to_string(port.port));
      std::set<std::string>& p = inventory[device.name + "/" + std::to_string(port.port)];
      add_names(p, "hw_counters/", port.hw_counters);
      add_names(p, "counters/", port.counters);
    }
  }
  for (const NetdevSample& netdev : snapshot.netdevs) {
    host.insert("class/net/" + netdev.name);
    std::set<std::string>& nd = inventory[netdev.name];
    add_names(nd, "statistics/", netdev.statistics);
    add_names(nd, "ethtool/", netdev.ethtool);
  }
  return inventory;
}

void VanishedTracker::observe(Snapshot& snapshot) {
  const auto now = inventory_of(snapshot);
  for (auto& [target, names] : seen_) {
    const auto current = now.find(target);
    std::vector<std::string> missing;
    for (const std::string& name : names) {
      if (current == now.end() || current->second.count(name) == 0) missing.push_back(name);
    }
    if (missing.empty()) continue;
    // A whole object that went (a device, a port) is named once, by its parent's entry; its
    // own counters are not listed again.
    if (current == now.end() && !target.empty()) continue;
    snapshot.sources.push_back(
        SourceStatus{kInventorySource, target, SourceState::error, describe_missing(missing), {}});
  }
  for (const auto& [target, names] : now) seen_[target].insert(names.begin(), names.end());
}

}  // namespace rdmatop
