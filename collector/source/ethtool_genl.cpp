#include "collector/source/ethtool_genl.h"

#include <libmnl/libmnl.h>
#include <linux/ethtool_netlink.h>
#include <linux/netlink.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <array>
#include <cerrno>

#include "collector/parse/ethtool_netlink_parse.h"

namespace rdmatop {

EthtoolGenl::EthtoolGenl() {
  nl_ = ::mnl_socket_open2(NETLINK_GENERIC, SOCK_CLOEXEC);
  if (nl_ == nullptr) {
    unavailable_ = errno_error(errno, "netlink socket");
    return;
  }
  if (::mnl_socket_bind(nl_, 0, MNL_SOCKET_AUTOPID) < 0) {
    unavailable_ = errno_error(errno, "netlink bind");
    return;
  }
  // Extended ack: the kernel's reason text in errors. Capped ack: no echo of our request.
  int on = 1;
  ::mnl_socket_setsockopt(nl_, NETLINK_EXT_ACK, &on, sizeof(on));
  ::mnl_socket_setsockopt(nl_, NETLINK_CAP_ACK, &on, sizeof(on));
  // The kernel answers a genl request before sendmsg returns; the timeout only keeps a
  // collector tick from hanging if that ever fails to hold.
  timeval timeout{1, 0};
  ::setsockopt(::mnl_socket_get_fd(nl_), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
}

EthtoolGenl::~EthtoolGenl() {
  if (nl_ != nullptr) ::mnl_socket_close(nl_);
}

Result<PauseInfo> EthtoolGenl::pause(const std::string& ifname) {
  auto family = family_id();
  if (!family) return family.error();
  const std::uint32_t seq = ++seq_;
  auto reply = transact<PauseInfo>(build_pause_get_request(*family, ifname, seq),
                                   [&](std::span<const std::uint8_t> datagram) {
                                     return parse_pause_reply(datagram, *family, seq);
                                   });
  if (!reply)
    return Error{reply.error().code, "ethtool PAUSE_GET " + ifname + ": " + reply.error().message};
  return reply;
}

Result<std::uint16_t> EthtoolGenl::family_id() {
  if (unavailable_) return *unavailable_;
  if (family_) return *family_;
  const std::uint32_t seq = ++seq_;
  auto id = transact<std::uint16_t>(build_genl_family_request(ETHTOOL_GENL_NAME, seq),
                                    [&](std::span<const std::uint8_t> datagram) {
                                      return parse_genl_family_reply(datagram, seq);
                                    });
  if (!id) {
    Error e{id.error().code, "genl family " ETHTOOL_GENL_NAME ": " + id.error().message};
    // ENOENT: the kernel has no ethtool netlink (before 5.6, or CONFIG_ETHTOOL_NETLINK=n).
    if (e.code == ENOENT) unavailable_ = e;
    return e;
  }
  family_ = *id;
  return *id;
}

template <class T, class Parse>
Result<T> EthtoolGenl::transact(const std::vector<std::uint8_t>& request, Parse parse) {
  if (::mnl_socket_sendto(nl_, request.data(), request.size()) < 0) {
    return errno_error(errno, "netlink send");
  }
  // Answers to an earlier, timed-out request may still be queued: the parsers skip them by
  // sequence number (ENOMSG) and we read on.
  alignas(nlmsghdr) std::array<std::uint8_t, 16384> buf{};
  for (int i = 0; i < 8; ++i) {
    const ssize_t n = ::mnl_socket_recvfrom(nl_, buf.data(), buf.size());
    if (n < 0) return errno_error(errno, "netlink receive");
    Result<T> r = parse(std::span<const std::uint8_t>(buf.data(), static_cast<std::size_t>(n)));
    if (r.ok() || r.error().code != ENOMSG) return r;
  }
  return Error{ENOMSG, "netlink: no reply to request"};
}

}  // namespace rdmatop
