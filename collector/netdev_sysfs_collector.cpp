// class/net/<if> -> NetdevSample, for the netdevs behind RDMA ports only. Formats:
// net/core/net-sysfs.c. One SourceStatus per netdev, source "netdev". On the live host the
// statistics/ counters come from rtnetlink (one RTM_GETSTATS per netdev, all in one exchange:
// link_stats_source.h) where it serves the netdev, from the 24 files otherwise, and the status
// says why.
#include <algorithm>
#include <array>
#include <cerrno>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "collector/collect.h"
#include "collector/parse/sysfs_parse.h"
#include "collector/sysfs_object_reader.h"

namespace rdmatop {
namespace {

using Presence = SysfsObjectReader::Presence;
using DirOutcome = SysfsObjectReader::DirOutcome;

constexpr std::string_view kNetdevSource = "netdev";

std::set<std::string> port_netdevs(const Snapshot& snap) {
  std::set<std::string> names;
  for (const auto& device : snap.devices) {
    for (const auto& port : device.ports) {
      if (!port.netdev.empty()) names.insert(port.netdev);
    }
  }
  return names;
}

/// The sorted names of the first `count` fields of kLinkStatsFields, and where each field lands
/// among them: made once per count, shared by every map built from a row.
struct LinkStatsLayout {
  SharedCounterNames names;
  std::array<std::size_t, kLinkStatsFields.size()> slot{};
};

const LinkStatsLayout& link_stats_layout(std::size_t count) {
  static const auto layouts = [] {
    std::array<LinkStatsLayout, kLinkStatsFields.size() + 1> all;
    for (std::size_t n = 0; n <= kLinkStatsFields.size(); ++n) {
      CounterNames names(kLinkStatsFields.begin(), kLinkStatsFields.begin() + n);
      std::sort(names.begin(), names.end());
      for (std::size_t field = 0; field < n; ++field) {
        all[n].slot[field] = static_cast<std::size_t>(
            std::lower_bound(names.begin(), names.end(), kLinkStatsFields[field]) - names.begin());
      }
      all[n].names = std::make_shared<const CounterNames>(std::move(names));
    }
    return all;
  }();
  return layouts[std::min(count, kLinkStatsFields.size())];
}

CounterMap link_stats_map(const LinkStats& row) {
  const LinkStatsLayout& layout = link_stats_layout(row.count);
  std::vector<std::uint64_t> values(row.count);
  for (std::size_t field = 0; field < row.count; ++field) {
    values[layout.slot[field]] = row.values[field];
  }
  return CounterMap(layout.names, std::move(values));
}

/// Where a netdev's statistics come from this tick: the rtnetlink row's map, or statistics/
/// with the reason (empty when rtnetlink is not used at all: not the live host).
struct LinkAnswer {
  std::optional<CounterMap> statistics;
  std::string fallback;
};

/// The statistics of every netdev in `names` that rtnetlink serves, in one exchange: those whose
/// ifindex in sysfs and in this network namespace are the same (sysfs mounted in another
/// namespace lists other netdevs under the same names). The others get why not.
std::map<std::string, LinkAnswer, std::less<>> statistics_by_rtnetlink(
    const CollectContext& ctx, const std::set<std::string>& names) {
  std::map<std::string, LinkAnswer, std::less<>> answers;
  std::vector<std::uint32_t> ifindexes;
  std::vector<const std::string*> asked;
  for (const auto& name : names) {
    if (!is_valid_netdev_name(name)) continue;
    LinkAnswer& answer = answers[name];
    // Kept as a static value: a netdev deleted and made again under its name (a new ifindex)
    // fails the held files of its directory with ENODEV, and the caching source then forgets
    // what it kept there (cached_file_source.h).
    auto text = ctx.sysfs.read_static("class/net/" + name + "/ifindex");
    auto in_sysfs = text ? parse_counter_value(*text) : Result<std::uint64_t>(text.error());
    if (!in_sysfs) {
      answer.fallback = "no ifindex in sysfs (" + in_sysfs.error().message + ")";
      continue;
    }
    const auto here = ctx.link_stats->ifindex(name);
    if (!here) {
      answer.fallback = here.error().message;
    } else if (*here != *in_sysfs) {
      answer.fallback = "ifindex " + std::to_string(*in_sysfs) + " in sysfs, " +
                        std::to_string(*here) + " in this network namespace";
    } else {
      ifindexes.push_back(*here);
      asked.push_back(&name);
    }
  }
  auto rows = ctx.link_stats->stats(ifindexes);
  for (std::size_t i = 0; i < asked.size(); ++i) {
    LinkAnswer& answer = answers[*asked[i]];
    if (i < rows.size() && rows[i]) {
      answer.statistics = link_stats_map(*rows[i]);
    } else {
      answer.fallback = i < rows.size() ? rows[i].error().message : "no answer";
    }
  }
  return answers;
}

void read_speed(SysfsObjectReader& reader, NetdevSample& out) {
  // speed_show returns -EINVAL while the link is down or the driver cannot tell, and prints
  // -1 (SPEED_UNKNOWN) in other cases; both mean "no speed", the second is kept as printed.
  auto text = reader.read_raw("speed");
  if (!text) {
    if (text.error().code != EINVAL) reader.record("speed", text.error(), Presence::optional);
    return;
  }
  const auto speed = parse_signed_value(*text);
  if (speed) {
    out.speed_mbps = *speed;
  } else {
    reader.record_parse_error("speed", speed.error());
  }
}

/// Reads one netdev; nullopt (with the status explaining why) when there is nothing to report.
std::optional<NetdevSample> read_netdev(const FileSource& fs, const std::string& name,
                                        LinkAnswer* link, SourceStatus& status) {
  StatusTimer timer(std::string(kNetdevSource), name);
  if (!is_valid_netdev_name(name)) {
    status = timer.finish(SourceState::error, "not a netdev name: " + escape_for_message(name));
    return std::nullopt;
  }
  const std::string base = "class/net/" + name;
  if (const auto listing = fs.list_static(base); !listing) {
    status = timer.finish(SourceState::error, "netdev not found (" + listing.error().message + ")");
    return std::nullopt;
  }

  ProblemLog log;
  SysfsObjectReader reader(fs, base, base, log);
  NetdevSample out;
  out.name = name;
  if (const auto mtu = reader.read_u64("mtu", Presence::required)) {
    if (*mtu <= std::numeric_limits<std::uint32_t>::max()) {
      out.mtu = static_cast<std::uint32_t>(*mtu);
    } else {
      reader.record_parse_error("mtu", Error{0, "out of range: " + std::to_string(*mtu)});
    }
  }
  if (auto operstate = reader.read_text("operstate", Presence::required)) {
    out.operstate = std::move(*operstate);
  }
  // carrier_changes appeared in Linux 3.15; older kernels simply lack it.
  out.carrier_changes = reader.read_u64("carrier_changes", Presence::optional);
  read_speed(reader, out);
  if (auto address =
          reader.read_text("address", Presence::required, SysfsObjectReader::Refresh::on_change)) {
    out.address = std::move(*address);
  }
  out.static_age = reader.static_age();
  if (link != nullptr && link->statistics) {
    out.statistics = std::move(*link->statistics);
  } else {
    if (link != nullptr) log.note("statistics from sysfs: " + link->fallback);
    if (reader.read_counters("statistics", out.statistics) == DirOutcome::absent) {
      log.note("no statistics/ directory");
    }
  }
  if (reader.vanished()) {
    status = timer.finish(SourceState::error, "netdev vanished during read");
    return std::nullopt;
  }
  status = timer.finish(log.state(), log.message());
  return out;
}

}  // namespace

void collect_netdev_sysfs(const CollectContext& ctx, Snapshot& out) {
  const std::set<std::string> names = port_netdevs(out);
  std::map<std::string, LinkAnswer, std::less<>> links;
  if (ctx.link_stats != nullptr) links = statistics_by_rtnetlink(ctx, names);
  for (const auto& name : names) {
    SourceStatus status;
    const auto link = links.find(name);
    auto sample =
        read_netdev(ctx.sysfs, name, link == links.end() ? nullptr : &link->second, status);
    out.sources.push_back(std::move(status));
    if (sample) out.netdevs.push_back(std::move(*sample));
  }
  std::stable_sort(out.netdevs.begin(), out.netdevs.end(),
                   [](const NetdevSample& a, const NetdevSample& b) { return a.name < b.name; });
}

}  // namespace rdmatop
