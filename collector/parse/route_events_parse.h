// rtnetlink notifications that may change a RoCE port's GID table, told apart from the ones that
// cannot (a carrier flap). Pure functions over bytes; the socket lives in
// collector/source/route_change_feed.cpp.
//
// Facts [src: torvalds/linux drivers/infiniband/core/roce_gid_mgmt.c netdevice_event,
// addr_event, inetaddr_event, inet6addr_event]: a RoCE port's GID table follows its netdev and
// the netdevs above it (VLAN, bond). The kernel adds or removes GIDs on the netdev events
// NETDEV_REGISTER, NETDEV_UP, NETDEV_UNREGISTER, NETDEV_CHANGEADDR (and, in kernels since 4.15,
// NETDEV_CHANGEUPPER and NETDEV_BONDING_FAILOVER) and on every IPv4 or IPv6 address added or
// removed; it does so in a work queue, after the event. Each of those events is also an
// rtnetlink notification (net/core/rtnetlink.c rtnetlink_event, net/ipv4/devinet.c rtmsg_ifa,
// net/ipv6/addrconf.c inet6_ifa_notify): RTM_NEWADDR / RTM_DELADDR for addresses, RTM_NEWLINK /
// RTM_DELLINK for the netdev. A netdev's carrier going up or down (linkwatch) is an RTM_NEWLINK
// too, with nothing GIDs depend on changed: so a link message counts only when the netdev is new
// to us, gone, or shows another name, MAC address, master or administrative state than before.
// The table's text names the netdev (gid_attrs/ndevs/N), hence the name.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>

#include "collector/model/result.h"

namespace rdmatop {

/// What a RoCE GID table depends on of one netdev, as its RTM_NEWLINK messages give it.
struct LinkIdentity {
  std::string name;          ///< IFLA_IFNAME
  std::string address;       ///< IFLA_ADDRESS, raw bytes
  std::uint32_t master = 0;  ///< IFLA_MASTER (a bond's ifindex); 0 when none
  bool up = false;           ///< IFF_UP: administratively up
  bool operator==(const LinkIdentity&) const = default;
};

/// The netdevs seen so far, by ifindex.
using KnownLinks = std::unordered_map<std::int32_t, LinkIdentity>;

/// Whether the notifications in `bytes` (whole rtnetlink messages, as one datagram of a socket
/// subscribed to RTNLGRP_LINK, RTNLGRP_IPV4_IFADDR and RTNLGRP_IPV6_IFADDR holds them) may have
/// changed a GID table: an address added or removed, or a link message that `known` (updated
/// here) shows as a change of what GIDs depend on. Other message types are skipped. Bytes that
/// do not form whole messages, or a link message too short for its header, are EPROTO: the
/// caller cannot tell what it missed and treats it as a change.
Result<bool> gid_events_in(std::span<const std::uint8_t> bytes, KnownLinks& known);

}  // namespace rdmatop
