#include "collector/parse/ethtool_netlink_parse.h"

#include <libmnl/libmnl.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <array>
#include <cerrno>
#include <optional>
#include <string>

#include "collector/parse/netlink_parse.h"

namespace rdmatop {
namespace {

/// The one message in `datagram` that answers request `seq` with type `type` and generic-netlink
/// command `cmd`. Other sequence numbers (a late answer to an earlier request) are skipped.
Result<std::vector<std::uint8_t>> find_genl_reply(std::span<const std::uint8_t> datagram,
                                                  std::uint32_t seq, std::uint16_t type,
                                                  std::uint8_t cmd) {
  std::optional<std::vector<std::uint8_t>> found;
  auto end = walk_messages(datagram, seq, [&](const nlmsghdr* nlh) -> Result<WalkStep> {
    if (nlh->nlmsg_type != type) {
      return Error{EPROTO, "unexpected netlink message type " + std::to_string(nlh->nlmsg_type)};
    }
    if (nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN) {
      return Error{EPROTO, "truncated generic netlink header"};
    }
    const auto* genl = static_cast<const genlmsghdr*>(mnl_nlmsg_get_payload(nlh));
    if (genl->cmd != cmd) {
      return Error{EPROTO, "unexpected generic netlink command " + std::to_string(genl->cmd)};
    }
    found = message_bytes(nlh);
    return WalkStep::stop;
  });
  if (!end) return end.error();
  if (found) return *found;
  return Error{ENOMSG, "no reply to request " + std::to_string(seq)};
}

}  // namespace

std::vector<std::uint8_t> build_genl_family_request(std::string_view family, std::uint32_t seq) {
  AlignedBuffer buf = request_buffer(family.size());
  // The controller speaks version 1 [src: iproute2 lib/libgenl.c genl_resolve_family].
  nlmsghdr* nlh = start_genl_request(buf, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, NLM_F_REQUEST, seq);
  mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, std::string(family).c_str());
  return message_bytes(nlh);
}

Result<std::uint16_t> parse_genl_family_reply(std::span<const std::uint8_t> datagram,
                                              std::uint32_t seq) {
  auto msg = find_genl_reply(datagram, seq, GENL_ID_CTRL, CTRL_CMD_NEWFAMILY);
  if (!msg) return msg.error();
  static constexpr std::array<AttrSpec, CTRL_ATTR_FAMILY_NAME + 1> kPolicy = [] {
    std::array<AttrSpec, CTRL_ATTR_FAMILY_NAME + 1> p{};
    p[CTRL_ATTR_FAMILY_ID] = {"CTRL_ATTR_FAMILY_ID", MNL_TYPE_U16};
    p[CTRL_ATTR_FAMILY_NAME] = {"CTRL_ATTR_FAMILY_NAME", MNL_TYPE_NUL_STRING};
    return p;
  }();
  const AlignedBuffer buf = aligned_copy(*msg);
  auto attrs = parse_attrs(as_nlmsg(buf), GENL_HDRLEN, kPolicy);
  if (!attrs) return attrs.error();
  const nlattr* id = attrs->tb[CTRL_ATTR_FAMILY_ID];
  if (id == nullptr) return Error{EPROTO, "CTRL_ATTR_FAMILY_ID missing from family reply"};
  return mnl_attr_get_u16(id);
}

std::vector<std::uint8_t> build_pause_get_request(std::uint16_t family_id, std::string_view ifname,
                                                  std::uint32_t seq) {
  AlignedBuffer buf = request_buffer(ifname.size());
  nlmsghdr* nlh = start_genl_request(buf, family_id, ETHTOOL_MSG_PAUSE_GET, ETHTOOL_GENL_VERSION,
                                     NLM_F_REQUEST, seq);
  nlattr* header = mnl_attr_nest_start(nlh, ETHTOOL_A_PAUSE_HEADER);
  mnl_attr_put_strz(nlh, ETHTOOL_A_HEADER_DEV_NAME, std::string(ifname).c_str());
  // ETHTOOL_FLAG_STATS asks for ETHTOOL_A_PAUSE_STATS, as `ethtool -I` does
  // [src: ethtool netlink/pause.c nl_gpause; kernel net/ethtool/pause.c pause_prepare_data].
  mnl_attr_put_u32(nlh, ETHTOOL_A_HEADER_FLAGS, ETHTOOL_FLAG_STATS);
  mnl_attr_nest_end(nlh, header);
  return message_bytes(nlh);
}

Result<PauseInfo> parse_pause_reply(std::span<const std::uint8_t> datagram, std::uint16_t family_id,
                                    std::uint32_t seq) {
  auto msg = find_genl_reply(datagram, seq, family_id, ETHTOOL_MSG_PAUSE_GET_REPLY);
  if (!msg) return msg.error();

  static constexpr std::array<AttrSpec, ETHTOOL_A_PAUSE_STATS + 1> kPausePolicy = [] {
    std::array<AttrSpec, ETHTOOL_A_PAUSE_STATS + 1> p{};
    p[ETHTOOL_A_PAUSE_HEADER] = {"ETHTOOL_A_PAUSE_HEADER", MNL_TYPE_NESTED};
    p[ETHTOOL_A_PAUSE_AUTONEG] = {"ETHTOOL_A_PAUSE_AUTONEG", MNL_TYPE_U8};
    p[ETHTOOL_A_PAUSE_RX] = {"ETHTOOL_A_PAUSE_RX", MNL_TYPE_U8};
    p[ETHTOOL_A_PAUSE_TX] = {"ETHTOOL_A_PAUSE_TX", MNL_TYPE_U8};
    p[ETHTOOL_A_PAUSE_STATS] = {"ETHTOOL_A_PAUSE_STATS", MNL_TYPE_NESTED};
    return p;
  }();
  // ETHTOOL_A_PAUSE_STAT_PAD only aligns the u64s that follow it, so it has no entry.
  static constexpr std::array<AttrSpec, ETHTOOL_A_PAUSE_STAT_RX_FRAMES + 1> kStatsPolicy = [] {
    std::array<AttrSpec, ETHTOOL_A_PAUSE_STAT_RX_FRAMES + 1> p{};
    p[ETHTOOL_A_PAUSE_STAT_TX_FRAMES] = {"ETHTOOL_A_PAUSE_STAT_TX_FRAMES", MNL_TYPE_U64};
    p[ETHTOOL_A_PAUSE_STAT_RX_FRAMES] = {"ETHTOOL_A_PAUSE_STAT_RX_FRAMES", MNL_TYPE_U64};
    return p;
  }();

  const AlignedBuffer buf = aligned_copy(*msg);
  auto attrs = parse_attrs(as_nlmsg(buf), GENL_HDRLEN, kPausePolicy);
  if (!attrs) return attrs.error();

  PauseInfo info;
  // Booleans are u8 where any non-zero value means true (ethtool-netlink.rst, "Conventions").
  auto flag = [&](int type) -> std::optional<bool> {
    if (attrs->tb[type] == nullptr) return std::nullopt;
    return mnl_attr_get_u8(attrs->tb[type]) != 0;
  };
  info.autoneg = flag(ETHTOOL_A_PAUSE_AUTONEG);
  info.rx = flag(ETHTOOL_A_PAUSE_RX);
  info.tx = flag(ETHTOOL_A_PAUSE_TX);

  if (const nlattr* nest = attrs->tb[ETHTOOL_A_PAUSE_STATS]; nest != nullptr) {
    auto stats = parse_nested(nest, kStatsPolicy);
    if (!stats) return stats.error();
    // A statistic the driver did not set is omitted by the kernel: absent, not zero.
    if (const nlattr* a = stats->tb[ETHTOOL_A_PAUSE_STAT_TX_FRAMES]) {
      info.tx_frames = mnl_attr_get_u64(a);
    }
    if (const nlattr* a = stats->tb[ETHTOOL_A_PAUSE_STAT_RX_FRAMES]) {
      info.rx_frames = mnl_attr_get_u64(a);
    }
  }
  return info;
}

}  // namespace rdmatop
