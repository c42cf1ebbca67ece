// Netdevs' interface statistics over rtnetlink: RTM_GETSTATS requests for IFLA_STATS_LINK_64 of
// given ifindexes (what `ip stats show dev IF group link` sends), several in one datagram, and
// their answers parsed into one row of values per netdev. Pure functions over bytes; the socket
// lives in collector/source/link_stats_source.cpp.
//
// One request per netdev, not a dump: a dump answers for every netdev of the namespace, and a
// host's RDMA ports are often a few of hundreds of netdevs (containers' veths), where the dump
// cost 8 times the sysfs files it replaces (bench/README.md, "Netdev statistics: rtnetlink against
// sysfs").
//
// Facts [src: torvalds/linux include/uapi/linux/if_link.h struct rtnl_link_stats64,
// net/core/rtnetlink.c rtnl_stats_get and rtnl_fill_statsinfo, net/core/net-sysfs.c
// NETSTAT_ENTRY]: IFLA_STATS_LINK_64 carries struct rtnl_link_stats64 filled by
// dev_get_stats(), the same call each file of class/net/<if>/statistics/ makes per read; its
// fields are in the order below, whose names are those files' names. The struct grew at its
// end (rx_nohandler in 4.6, rx_otherhost_dropped in 5.19); RTM_GETSTATS came in 4.7, so every
// answer has the 24 fields of sysfs. A shorter payload would give fewer values; fields past the
// sysfs set are not read (sysfs has no rx_otherhost_dropped).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "collector/model/result.h"

namespace rdmatop {

/// The fields of struct rtnl_link_stats64 that class/net/<if>/statistics/ has as files, in the
/// struct's order.
constexpr std::array<std::string_view, 24> kLinkStatsFields = {
    "rx_packets",        "tx_packets",        "rx_bytes",         "tx_bytes",
    "rx_errors",         "tx_errors",         "rx_dropped",       "tx_dropped",
    "multicast",         "collisions",        "rx_length_errors", "rx_over_errors",
    "rx_crc_errors",     "rx_frame_errors",   "rx_fifo_errors",   "rx_missed_errors",
    "tx_aborted_errors", "tx_carrier_errors", "tx_fifo_errors",   "tx_heartbeat_errors",
    "tx_window_errors",  "rx_compressed",     "tx_compressed",    "rx_nohandler"};

/// One netdev's statistics: `count` values in kLinkStatsFields order (fewer than all of them
/// from a kernel whose struct is shorter).
struct LinkStats {
  std::uint32_t ifindex = 0;
  std::uint32_t count = 0;
  std::array<std::uint64_t, kLinkStatsFields.size()> values{};
};

/// One RTM_GETSTATS request (IFLA_STATS_LINK_64 only) per ifindex, the i-th with sequence number
/// `first_seq` + i, concatenated: the kernel handles every message of a datagram in turn
/// (af_netlink.c netlink_rcv_skb) and answers each with RTM_NEWSTATS or NLMSG_ERROR.
std::vector<std::uint8_t> build_link_stats_requests(std::span<const std::uint32_t> ifindexes,
                                                    std::uint32_t first_seq);

/// Whether `bytes` (the whole reply so far, or its newest datagram) hold the answer to the last of
/// the `count` requests from `first_seq` on: the kernel answers them in order, so then every one
/// is answered. Malformed bytes also end the reply.
bool link_stats_replies_complete(std::span<const std::uint8_t> bytes, std::uint32_t first_seq,
                                 std::size_t count);

/// The answer to each request, in the requests' order: the netdev's row, or the kernel's errno
/// (ENODEV: no such ifindex; EOPNOTSUPP or EINVAL: a kernel before 4.7, without RTM_GETSTATS).
/// A message of another type, a header shorter than if_stats_msg, a row of another ifindex than
/// asked, no IFLA_STATS_LINK_64, a payload that is not whole u64 fields, bytes that do not form
/// whole messages, or no answer at all is EPROTO.
std::vector<Result<LinkStats>> parse_link_stats_replies(std::span<const std::uint8_t> reply,
                                                        std::span<const std::uint32_t> ifindexes,
                                                        std::uint32_t first_seq);

}  // namespace rdmatop
