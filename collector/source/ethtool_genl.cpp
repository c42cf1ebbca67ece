#include "collector/source/ethtool_genl.h"

#include <linux/ethtool_netlink.h>
#include <linux/netlink.h>

#include <cerrno>

#include "collector/parse/ethtool_netlink_parse.h"

namespace rdmatop {

EthtoolGenl::EthtoolGenl() : nl_(NETLINK_GENERIC), unavailable_(nl_.unavailable()) {}

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
  if (auto sent = nl_.send(request); !sent) return sent.error();
  // Answers to an earlier, timed-out request may still be queued: the parsers skip them by
  // sequence number (ENOMSG) and we read on.
  for (int i = 0; i < 8; ++i) {
    auto datagram = nl_.receive();
    if (!datagram) return datagram.error();
    Result<T> r = parse(std::span<const std::uint8_t>(*datagram));
    if (r.ok() || r.error().code != ENOMSG) return r;
  }
  return Error{ENOMSG, "netlink: no reply to request"};
}

}  // namespace rdmatop
