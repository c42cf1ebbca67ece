#include "collector/vanished_tracker.h"

#include <algorithm>
#include <cstddef>
#include <deque>
#include <iterator>
#include <string_view>
#include <utility>

namespace rdmatop {
namespace {

// A status lists the first few missing names and counts the rest: a whole hw_counters/
// directory is a hundred names, and the message is read by people.
constexpr std::size_t kNamesShown = 5;

/// What this tick read under one prefix of a target, sorted: a counter map's names vector
/// (`counters`, read in place), or views into the Snapshot or the tick's own storage (`names`,
/// for the listings and the port numbers).
struct SectionView {
  std::string_view prefix;
  SharedCounterNames counters;
  std::vector<std::string_view> names;
};
using CurrentInventory = std::map<std::string, std::vector<SectionView>>;

void add_counters(std::vector<SectionView>& into, std::string_view prefix,
                  const CounterMap& counters) {
  into.push_back(SectionView{prefix, counters.names(), {}});  // sorted; null when empty
}

/// The view's names as views (its counter names, or its listing).
std::vector<std::string_view> names_of(const SectionView& view) {
  if (view.counters == nullptr) return view.names;
  return {view.counters->begin(), view.counters->end()};
}

void add_sorted(std::vector<SectionView>& into, std::string_view prefix,
                std::vector<std::string_view> names) {
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  into.push_back(SectionView{prefix, nullptr, std::move(names)});
}

/// Everything `snapshot` read, by target; `storage` keeps the port numbers' text alive.
CurrentInventory current_inventory(const Snapshot& snapshot, std::deque<std::string>& storage) {
  CurrentInventory now;
  std::vector<std::string_view> device_names;
  std::vector<std::string_view> netdev_names;
  for (const DeviceSample& device : snapshot.devices) {
    device_names.push_back(device.name);
    std::vector<SectionView>& dev = now[device.name];
    add_counters(dev, "hw_counters/", device.hw_counters);
    std::vector<std::string_view> port_names;
    for (const PortSample& port : device.ports) {
      port_names.push_back(storage.emplace_back(std::to_string(port.port)));
      std::vector<SectionView>& p = now[device.name + "/" + storage.back()];
      add_counters(p, "counters/", port.counters);
      add_counters(p, "hw_counters/", port.hw_counters);
    }
    add_sorted(dev, "ports/", std::move(port_names));
  }
  for (const NetdevSample& netdev : snapshot.netdevs) {
    netdev_names.push_back(netdev.name);
    std::vector<SectionView>& nd = now[netdev.name];
    add_counters(nd, "ethtool/", netdev.ethtool);
    add_counters(nd, "statistics/", netdev.statistics);
  }
  std::vector<SectionView>& host = now[""];
  add_sorted(host, "class/infiniband/", std::move(device_names));
  add_sorted(host, "class/net/", std::move(netdev_names));
  // A netdev and a device of one name share a target: their sections are put in prefix order,
  // and a prefix read twice (never, for the names the kernel allows) is merged into one view.
  for (auto& [target, views] : now) {
    std::stable_sort(views.begin(), views.end(), [](const SectionView& a, const SectionView& b) {
      return a.prefix < b.prefix;
    });
    for (std::size_t i = 1; i < views.size();) {
      if (views[i].prefix != views[i - 1].prefix) {
        ++i;
        continue;
      }
      const std::vector<std::string_view> first = names_of(views[i - 1]);
      const std::vector<std::string_view> second = names_of(views[i]);
      std::vector<std::string_view> both;
      std::set_union(first.begin(), first.end(), second.begin(), second.end(),
                     std::back_inserter(both));
      views[i - 1].counters = nullptr;
      views[i - 1].names = std::move(both);
      views.erase(views.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
  return now;
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

/// The view of `now` under `prefix` (views are unique per prefix), or null.
const SectionView* view_under(const std::vector<SectionView>& now, std::string_view prefix) {
  for (const SectionView& view : now) {
    if (view.prefix == prefix) return &view;
  }
  return nullptr;
}

/// Walks the remembered and the current names of one section in step: appends what is missing
/// now (joined with the prefix) to `missing` and adds what is new to `remembered`. True when
/// the two were equal.
template <class Names>
bool compare_section(std::string_view prefix, std::vector<std::string>& remembered,
                     const Names& current, std::vector<std::string>& missing) {
  const std::size_t missing_before = missing.size();
  std::vector<std::string_view> added;
  auto old_it = remembered.begin();
  auto now_it = current.begin();
  while (old_it != remembered.end() || now_it != current.end()) {
    if (now_it == current.end() || (old_it != remembered.end() && *old_it < *now_it)) {
      missing.push_back(std::string(prefix) + *old_it++);
    } else if (old_it == remembered.end() || *now_it < *old_it) {
      added.emplace_back(*now_it++);
    } else {
      ++old_it;
      ++now_it;
    }
  }
  if (added.empty()) return missing.size() == missing_before;
  std::vector<std::string> grown;
  grown.reserve(remembered.size() + added.size());
  auto added_it = added.begin();
  for (std::string& name : remembered) {
    while (added_it != added.end() && *added_it < name) grown.emplace_back(*added_it++);
    grown.push_back(std::move(name));
  }
  while (added_it != added.end()) grown.emplace_back(*added_it++);
  remembered = std::move(grown);
  return false;
}

/// compare_section over whatever `view` holds now (nothing when it is null), skipped when the
/// view's counter names are `matched`, the vector found equal to `remembered` last time.
void compare_view(std::string_view prefix, std::vector<std::string>& remembered,
                  SharedCounterNames& matched, const SectionView* view,
                  std::vector<std::string>& missing) {
  static const std::vector<std::string_view> kNone;
  if (view == nullptr || view->counters == nullptr) {
    matched = nullptr;
    compare_section(prefix, remembered, view == nullptr ? kNone : view->names, missing);
    return;
  }
  if (matched == view->counters) return;  // the same vector: equal to `remembered` still
  const bool equal = compare_section(prefix, remembered, *view->counters, missing);
  matched = equal ? view->counters : nullptr;
}

}  // namespace

void VanishedTracker::observe(Snapshot& snapshot) {
  std::deque<std::string> storage;
  const CurrentInventory now = current_inventory(snapshot, storage);
  // A remembered target that is absent now is a whole object that went (a device, a port): it
  // is named once, by its parent's entry, and its own counters are not listed again. So only
  // the targets read now are compared, in target order (the host, "", first).
  for (const auto& [target, views] : now) {
    std::vector<Section>& sections = seen_[target];
    for (const SectionView& view : views) {
      const auto at = std::lower_bound(
          sections.begin(), sections.end(), view.prefix,
          [](const Section& section, std::string_view prefix) { return section.prefix < prefix; });
      if (at == sections.end() || at->prefix != view.prefix) {
        sections.insert(at, Section{std::string(view.prefix), {}, nullptr});
      }
    }
    std::vector<std::string> missing;
    for (Section& section : sections) {
      compare_view(section.prefix, section.names, section.matched,
                   view_under(views, section.prefix), missing);
    }
    if (missing.empty()) continue;
    snapshot.sources.push_back(
        SourceStatus{kInventorySource, target, SourceState::error, describe_missing(missing), {}});
  }
}

}  // namespace rdmatop
