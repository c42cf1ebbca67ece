#include "collector/parse/route_events_parse.h"

#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "collector/parse/netlink_parse.h"

namespace rdmatop {
namespace {

constexpr std::array<AttrSpec, IFLA_MASTER + 1> kLinkPolicy = [] {
  std::array<AttrSpec, IFLA_MASTER + 1> p{};
  p[IFLA_ADDRESS] = {"IFLA_ADDRESS", MNL_TYPE_BINARY};
  p[IFLA_IFNAME] = {"IFLA_IFNAME", MNL_TYPE_NUL_STRING};
  p[IFLA_MASTER] = {"IFLA_MASTER", MNL_TYPE_U32};
  return p;
}();

/// Whether the link message `nlh` changes what `known` holds of its netdev (and records it).
Result<bool> link_changed(const nlmsghdr* nlh, KnownLinks& known) {
  if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(ifinfomsg)) {
    return Error{EPROTO, "truncated ifinfomsg header"};
  }
  ifinfomsg ifi{};
  std::memcpy(&ifi, mnl_nlmsg_get_payload(nlh), sizeof ifi);
  if (nlh->nlmsg_type == RTM_DELLINK) {
    known.erase(ifi.ifi_index);
    return true;
  }
  auto attrs = parse_attrs(nlh, sizeof(ifinfomsg), kLinkPolicy);
  if (!attrs) return attrs.error();
  LinkIdentity now;
  now.name = attr_string(attrs->tb[IFLA_IFNAME]);
  if (const nlattr* a = attrs->tb[IFLA_ADDRESS]; a != nullptr) {
    const auto* bytes = static_cast<const char*>(mnl_attr_get_payload(a));
    now.address.assign(bytes, mnl_attr_get_payload_len(a));
  }
  if (const nlattr* a = attrs->tb[IFLA_MASTER]; a != nullptr) now.master = mnl_attr_get_u32(a);
  now.up = (ifi.ifi_flags & IFF_UP) != 0;
  const auto [it, added] = known.try_emplace(ifi.ifi_index, now);
  if (added) return true;
  if (it->second == now) return false;
  it->second = std::move(now);
  return true;
}

}  // namespace

Result<bool> gid_events_in(std::span<const std::uint8_t> bytes, KnownLinks& known) {
  bool changed = false;
  auto walked = walk_each_message(bytes, [&](const nlmsghdr* nlh) -> Result<WalkStep> {
    switch (nlh->nlmsg_type) {
      case RTM_NEWADDR:
      case RTM_DELADDR:
        changed = true;
        break;
      case RTM_NEWLINK:
      case RTM_DELLINK: {
        auto link = link_changed(nlh, known);
        if (!link) return link.error();
        changed = changed || *link;
        break;
      }
      default:
        break;
    }
    return WalkStep::next;
  });
  if (!walked) return walked.error();
  return changed;
}

}  // namespace rdmatop
