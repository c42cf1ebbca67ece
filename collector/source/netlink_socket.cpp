#include "collector/source/netlink_socket.h"

#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <cerrno>
#include <string>

namespace rdmatop {

NetlinkSocket::NetlinkSocket(int bus, unsigned groups) {
  nl_ = ::mnl_socket_open2(bus, SOCK_CLOEXEC);
  if (nl_ == nullptr) {
    unavailable_ = errno_error(errno, "netlink socket");
    return;
  }
  if (::mnl_socket_bind(nl_, groups, MNL_SOCKET_AUTOPID) < 0) {
    unavailable_ = errno_error(errno, "netlink bind");
    return;
  }
  // Extended ack: the kernel's reason text in errors. Capped ack: no echo of our request.
  int on = 1;
  ::mnl_socket_setsockopt(nl_, NETLINK_EXT_ACK, &on, sizeof(on));
  ::mnl_socket_setsockopt(nl_, NETLINK_CAP_ACK, &on, sizeof(on));
  // The kernel answers a request before sendmsg returns; the timeout only keeps a collector
  // tick from hanging if that ever fails to hold.
  timeval timeout{1, 0};
  ::setsockopt(::mnl_socket_get_fd(nl_), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
}

NetlinkSocket::~NetlinkSocket() {
  if (nl_ != nullptr) ::mnl_socket_close(nl_);
}

Result<bool> NetlinkSocket::listen_all_namespaces() {
  if (unavailable_) return *unavailable_;
  int on = 1;
  if (::mnl_socket_setsockopt(nl_, NETLINK_LISTEN_ALL_NSID, &on, sizeof(on)) < 0) {
    return errno_error(errno, "NETLINK_LISTEN_ALL_NSID");
  }
  return true;
}

Result<bool> NetlinkSocket::send(std::span<const std::uint8_t> request) {
  if (unavailable_) return *unavailable_;
  if (::mnl_socket_sendto(nl_, request.data(), request.size()) < 0) {
    return errno_error(errno, "netlink send");
  }
  return true;
}

Result<std::span<const std::uint8_t>> NetlinkSocket::receive_into_scratch(int flags) {
  if (unavailable_) return *unavailable_;
  // Dump datagrams are at most 32 KiB (netlink_dump's max_recvmsg_len cap); MNL_SOCKET_BUFFER_SIZE
  // (8 KiB) would truncate them. Sized once: a buffer made per datagram was zero-filled each
  // time, 32 KiB per answer of a one-message reply.
  if (scratch_.empty()) scratch_.resize(32768);
  const ssize_t n =
      ::recv(::mnl_socket_get_fd(nl_), scratch_.data(), scratch_.size(), flags | MSG_TRUNC);
  if (n < 0) return errno_error(errno, "netlink receive");
  // MSG_TRUNC: n is the datagram's real length, so a cut one shows as longer than the buffer
  // (ENOSPC, as libmnl's mnl_socket_recvfrom says it).
  if (static_cast<std::size_t>(n) > scratch_.size()) {
    return Error{ENOSPC, "netlink receive: a datagram of " + std::to_string(n) + " bytes was cut"};
  }
  return std::span<const std::uint8_t>(scratch_.data(), static_cast<std::size_t>(n));
}

Result<std::optional<std::span<const std::uint8_t>>> NetlinkSocket::receive_queued() {
  auto datagram = receive_into_scratch(MSG_DONTWAIT);
  if (!datagram) {
    if (datagram.error().code == EAGAIN || datagram.error().code == EWOULDBLOCK) {
      return std::optional<std::span<const std::uint8_t>>();
    }
    return datagram.error();
  }
  return std::optional(*datagram);
}

Result<std::vector<std::uint8_t>> NetlinkSocket::receive() {
  auto datagram = receive_into_scratch(0);
  if (!datagram) return datagram.error();
  return std::vector<std::uint8_t>(datagram->begin(), datagram->end());
}

Result<std::vector<std::uint8_t>> NetlinkSocket::exchange(
    std::span<const std::uint8_t> request,
    const std::function<bool(std::span<const std::uint8_t>)>& complete) {
  if (auto sent = send(request); !sent) return sent.error();
  std::vector<std::uint8_t> reply;
  for (;;) {
    auto datagram = receive_into_scratch(0);
    if (!datagram) return datagram.error();
    if (datagram->empty()) return Error{EPROTO, "netlink: empty datagram"};
    reply.insert(reply.end(), datagram->begin(), datagram->end());
    reply.resize(NLMSG_ALIGN(reply.size()), 0);
    if (complete(*datagram)) return reply;
  }
}

}  // namespace rdmatop
