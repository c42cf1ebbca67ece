// One bound libmnl netlink socket (any bus: NETLINK_GENERIC for ethtool, NETLINK_RDMA for
// nldev) with extended and capped acks and a receive timeout. Only moves bytes; building and
// parsing messages is collector/parse/*.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "collector/model/result.h"

struct mnl_socket;

namespace rdmatop {

class NetlinkSocket {
 public:
  /// Opens and binds a socket on `bus` in the network namespace of the calling thread,
  /// subscribed to the multicast `groups` (a bitmask of the bus's legacy group bits, such as
  /// RTMGRP_LINK; 0: none), whose notifications then wait in the socket's queue.
  explicit NetlinkSocket(int bus, unsigned groups = 0);
  NetlinkSocket(const NetlinkSocket&) = delete;
  NetlinkSocket& operator=(const NetlinkSocket&) = delete;
  ~NetlinkSocket();

  /// Also receives the notifications of every network namespace that has an id in this one
  /// (NETLINK_LISTEN_ALL_NSID, netlink(7); Linux 4.2, CAP_NET_BROADCAST).
  Result<bool> listen_all_namespaces();
  /// Why the socket could not be opened, if it could not.
  const std::optional<Error>& unavailable() const { return unavailable_; }
  Result<bool> send(std::span<const std::uint8_t> request);
  /// One datagram (up to 32 KiB, the most the kernel puts in one dump datagram).
  Result<std::vector<std::uint8_t>> receive();
  /// The next datagram already queued, without waiting; nullopt when none is (EAGAIN). ENOBUFS
  /// says the queue overran and notifications were lost (netlink(7)). Valid until the next
  /// receive.
  Result<std::optional<std::span<const std::uint8_t>>> receive_queued();
  /// Sends `request`, then receives datagrams (concatenated, each padded to NLMSG_ALIGNTO) until
  /// `complete`, given each datagram as it arrives, says it ends the reply. A datagram holds
  /// whole messages, so what ends a reply (NLMSG_DONE, an ACK or error, the last of several
  /// requests' answers) is found in the newest datagram alone: a reply of many datagrams is
  /// not walked again for each. The receive timeout bounds the loop.
  Result<std::vector<std::uint8_t>> exchange(
      std::span<const std::uint8_t> request,
      const std::function<bool(std::span<const std::uint8_t>)>& complete);

 private:
  /// The newest datagram, in a buffer kept between receives; `flags` for recv(2)
  /// (MSG_DONTWAIT), a cut datagram is ENOSPC.
  Result<std::span<const std::uint8_t>> receive_into_scratch(int flags);

  mnl_socket* nl_ = nullptr;
  std::optional<Error> unavailable_;
  std::vector<std::uint8_t> scratch_;
};

}  // namespace rdmatop
