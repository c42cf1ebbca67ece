// The changes that may move a RoCE port's GID table, as rtnetlink announces them: a socket
// subscribed to the link and IPv4/IPv6 address groups, drained without waiting at each pass.
// Which notifications count is collector/parse/route_events_parse.h.
#pragma once

#include <cstdint>
#include <memory>

#include "collector/source/change_feed.h"

namespace rdmatop {

/// The network namespaces whose notifications the feed takes.
enum class Namespaces : std::uint8_t {
  /// The caller's and every one with an id in it (NETLINK_LISTEN_ALL_NSID, where permitted):
  /// a RoCE GID table also lists the addresses of upper devices moved into other namespaces
  /// (a macvlan in a container's; roce_gid_mgmt.c walks every namespace), and moving a device
  /// out gives its new namespace an id here (net/core/dev.c, dev_change_net_namespace).
  all_with_id,
  own,  ///< the caller's alone
};

/// In the caller's network namespace, the one whose netdevs class/net shows.
std::unique_ptr<ChangeFeed> make_route_change_feed(Namespaces namespaces = Namespaces::all_with_id);

}  // namespace rdmatop
