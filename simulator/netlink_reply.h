// The simulated kernel's netlink dump replies, message by message: the framing shared by the
// devlink (generic netlink) and RDMA netlink renderers. Each message is NLM_F_MULTI with the
// request's sequence number, sent from port id 0 (the kernel), and the dump ends with
// NLMSG_DONE (a doit's answer with the ACK); the bytes are the datagrams concatenated, as
// rdmatop's sources receive them.
#pragma once

#include <linux/netlink.h>

#include <cstdint>
#include <functional>
#include <vector>

namespace rdmatop::sim {

class NetlinkReply {
 public:
  explicit NetlinkReply(std::uint32_t seq) : seq_(seq) {}

  /// One message of netlink type `type`; `fill` puts the family header (if any) and the
  /// attributes with libmnl.
  void message(std::uint16_t type, const std::function<void(nlmsghdr*)>& fill);

  /// NLMSG_DONE (with its int 0), then every byte of the reply.
  std::vector<std::uint8_t> done();

  /// The end of a request's answer that is not a dump (a doit sent with NLM_F_ACK): the ACK,
  /// NLMSG_ERROR with error 0 and the request's header (NLM_F_CAPPED), then every byte.
  std::vector<std::uint8_t> ack();

 private:
  nlmsghdr* start(std::uint16_t type);
  void finish(const nlmsghdr* nlh);

  std::uint32_t seq_;
  std::vector<std::uint64_t> scratch_;
  std::vector<std::uint8_t> bytes_;
};

}  // namespace rdmatop::sim
