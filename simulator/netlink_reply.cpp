#include "simulator/netlink_reply.h"

#include <libmnl/libmnl.h>

#include <utility>

namespace rdmatop::sim {

void NetlinkReply::message(std::uint16_t type, const std::function<void(nlmsghdr*)>& fill) {
  nlmsghdr* nlh = start(type);
  fill(nlh);
  finish(nlh);
}

std::vector<std::uint8_t> NetlinkReply::done() {
  nlmsghdr* nlh = start(NLMSG_DONE);
  *static_cast<int*>(mnl_nlmsg_put_extra_header(nlh, sizeof(int))) = 0;
  finish(nlh);
  return std::move(bytes_);
}

std::vector<std::uint8_t> NetlinkReply::ack() {
  nlmsghdr* nlh = start(NLMSG_ERROR);
  nlh->nlmsg_flags = NLM_F_CAPPED;
  auto* err = static_cast<nlmsgerr*>(mnl_nlmsg_put_extra_header(nlh, sizeof(nlmsgerr)));
  err->error = 0;
  err->msg.nlmsg_len = NLMSG_HDRLEN;
  err->msg.nlmsg_seq = seq_;
  finish(nlh);
  return std::move(bytes_);
}

nlmsghdr* NetlinkReply::start(std::uint16_t type) {
  // One datagram's worth: the kernel starts a new message before a dump's skb is full.
  scratch_.assign(MNL_SOCKET_BUFFER_SIZE / sizeof(std::uint64_t), 0);
  nlmsghdr* nlh = mnl_nlmsg_put_header(scratch_.data());
  nlh->nlmsg_type = type;
  nlh->nlmsg_flags = NLM_F_MULTI;
  nlh->nlmsg_seq = seq_;
  nlh->nlmsg_pid = 0;
  return nlh;
}

void NetlinkReply::finish(const nlmsghdr* nlh) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(nlh);
  bytes_.insert(bytes_.end(), p, p + NLMSG_ALIGN(nlh->nlmsg_len));
}

}  // namespace rdmatop::sim
