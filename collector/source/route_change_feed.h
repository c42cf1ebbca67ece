// The changes that may move a RoCE port's GID table, as rtnetlink announces them: a socket
// subscribed to the link and IPv4/IPv6 address groups, drained without waiting at each pass.
// Which notifications count is collector/parse/route_events_parse.h.
#pragma once

#include <memory>

#include "collector/source/change_feed.h"

namespace rdmatop {

/// In the caller's network namespace, the one whose netdevs class/net shows.
std::unique_ptr<ChangeFeed> make_route_change_feed();

}  // namespace rdmatop
