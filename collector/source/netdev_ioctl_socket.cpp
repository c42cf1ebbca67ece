#include "collector/source/netdev_ioctl_socket.h"

#include <linux/netlink.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace rdmatop {

NetdevIoctlSocket::NetdevIoctlSocket() {
  for (auto [family, proto] :
       {std::pair{AF_INET, 0}, std::pair{AF_NETLINK, NETLINK_GENERIC}, std::pair{AF_UNIX, 0}}) {
    fd_ = ::socket(family, SOCK_DGRAM | SOCK_CLOEXEC, proto);
    if (fd_ >= 0) return;
    socket_error_ = errno;
  }
}

NetdevIoctlSocket::~NetdevIoctlSocket() {
  if (fd_ >= 0) ::close(fd_);
}

int NetdevIoctlSocket::call(const std::string& ifname, unsigned long request, ifreq& ifr) const {
  if (fd_ < 0) return socket_error_;
  if (ifname.empty() || ifname.size() >= IFNAMSIZ) return ENODEV;
  std::memset(ifr.ifr_name, 0, sizeof ifr.ifr_name);
  std::memcpy(ifr.ifr_name, ifname.data(), ifname.size());
  return ::ioctl(fd_, request, &ifr) == 0 ? 0 : errno;
}

}  // namespace rdmatop
