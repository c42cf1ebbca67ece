// A socket that carries netdev ioctls (SIOCETHTOOL, SIOCGIFINDEX) for one network namespace:
// the ethtool ioctl source and the rtnetlink statistics source each hold one.
#pragma once

#include <net/if.h>

#include <string>

namespace rdmatop {

class NetdevIoctlSocket {
 public:
  /// Opens the socket in the caller's network namespace; any family works, the ioctls need only
  /// the namespace. ethtool uses AF_INET and falls back to NETLINK_GENERIC (ethtool.c
  /// `ioctl_init`); AF_UNIX also serves when IPv4 is compiled out.
  NetdevIoctlSocket();
  NetdevIoctlSocket(const NetdevIoctlSocket&) = delete;
  NetdevIoctlSocket& operator=(const NetdevIoctlSocket&) = delete;
  ~NetdevIoctlSocket();

  /// One ioctl `request` on `ifname` with `ifr` (its ifr_name set here): 0 or the errno. A name
  /// that does not fit ifr_name cannot name a netdev: ENODEV. Without a socket: why it could
  /// not be opened.
  int call(const std::string& ifname, unsigned long request, ifreq& ifr) const;

 private:
  int fd_ = -1;
  int socket_error_ = 0;
};

}  // namespace rdmatop
