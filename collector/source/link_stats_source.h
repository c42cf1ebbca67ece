// Netdevs' interface statistics by rtnetlink, and a netdev's ifindex by name. On a live host this
// replaces reading class/net/<if>/statistics/ (24 files, each a dev_get_stats() call in the
// kernel: for mlx5 a fold over every channel's counters per file) with one RTM_GETSTATS request
// per netdev, all sent in one datagram, each answered from one dev_get_stats() call: the 24
// values of a netdev are also taken at one instant. Building and parsing is
// collector/parse/link_stats_parse.h; this only moves bytes.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "collector/model/result.h"
#include "collector/parse/link_stats_parse.h"

namespace rdmatop {

class LinkStatsSource {
 public:
  virtual ~LinkStatsSource() = default;
  /// The statistics of each of `ifindexes` in this network namespace, in their order: a row or
  /// why not (a socket failure gives each the same error).
  virtual std::vector<Result<LinkStats>> stats(std::span<const std::uint32_t> ifindexes) = 0;
  /// The ifindex of `ifname` in this network namespace (ENODEV: no such netdev).
  virtual Result<std::uint32_t> ifindex(const std::string& ifname) = 0;
};

/// The live kernel: a NETLINK_ROUTE socket and an ioctl socket (SIOCGIFINDEX), both in the
/// caller's network namespace.
std::unique_ptr<LinkStatsSource> make_live_link_stats_source();

}  // namespace rdmatop
