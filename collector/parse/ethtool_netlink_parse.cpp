#include "collector/parse/ethtool_netlink_parse.h"

#include <libmnl/libmnl.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstring>
#include <string>

namespace rdmatop {
namespace {

// libmnl reads the buffer through nlmsghdr/nlattr pointers, so every message is parsed from
// (and built in) 8-byte aligned storage, whatever the alignment of the caller's bytes.
using AlignedBuffer = std::vector<std::uint64_t>;

AlignedBuffer aligned_copy(std::span<const std::uint8_t> bytes) {
  AlignedBuffer buf((bytes.size() + sizeof(std::uint64_t) - 1) / sizeof(std::uint64_t) + 1, 0);
  if (!bytes.empty()) std::memcpy(buf.data(), bytes.data(), bytes.size());
  return buf;
}

std::vector<std::uint8_t> message_bytes(const nlmsghdr* nlh) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(nlh);
  return {p, p + nlh->nlmsg_len};
}

// --- attribute policy tables (iproute2 `rd_attr_cb` style) -----------------------------------

struct AttrSpec {
  const char* name = nullptr;  ///< nullptr: not interpreted (PAD, unknown): skipped
  mnl_attr_data_type type = MNL_TYPE_UNSPEC;
};

struct AttrTable {
  std::span<const AttrSpec> policy;
  std::vector<const nlattr*> tb;
  std::string error;

  explicit AttrTable(std::span<const AttrSpec> p) : policy(p), tb(p.size(), nullptr) {}
};

int attr_cb(const nlattr* attr, void* data) {
  auto* table = static_cast<AttrTable*>(data);
  const std::uint16_t type = mnl_attr_get_type(attr);
  // Newer kernels add attributes (e.g. ETHTOOL_A_PAUSE_STATS_SRC); ignoring what we don't know
  // keeps this parser working on kernels it was not tested on.
  if (type >= table->policy.size() || table->policy[type].name == nullptr) return MNL_CB_OK;
  if (mnl_attr_validate(attr, table->policy[type].type) < 0) {
    table->error = std::string(table->policy[type].name) + ": invalid attribute (" +
                   std::strerror(errno) + ", payload " +
                   std::to_string(mnl_attr_get_payload_len(attr)) + " bytes)";
    return MNL_CB_ERROR;
  }
  table->tb[type] = attr;
  return MNL_CB_OK;
}

Result<AttrTable> parse_attrs(const nlmsghdr* nlh, unsigned offset,
                              std::span<const AttrSpec> policy) {
  AttrTable table(policy);
  if (mnl_attr_parse(nlh, offset, attr_cb, &table) < 0) return Error{EPROTO, table.error};
  return table;
}

Result<AttrTable> parse_nested(const nlattr* nest, std::span<const AttrSpec> policy) {
  AttrTable table(policy);
  if (mnl_attr_parse_nested(nest, attr_cb, &table) < 0) return Error{EPROTO, table.error};
  return table;
}

// --- message walking --------------------------------------------------------------------------

constexpr std::array<AttrSpec, NLMSGERR_ATTR_MSG + 1> kExtackPolicy = [] {
  std::array<AttrSpec, NLMSGERR_ATTR_MSG + 1> p{};
  p[NLMSGERR_ATTR_MSG] = {"NLMSGERR_ATTR_MSG", MNL_TYPE_NUL_STRING};
  return p;
}();

/// NLMSG_ERROR with error != 0 → the kernel's errno plus the extended-ack text if any.
/// Returns an Error with code 0 for a plain ACK (error == 0).
Error kernel_error(const nlmsghdr* nlh) {
  if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(nlmsgerr)) {
    return Error{EPROTO, "truncated NLMSG_ERROR message"};
  }
  const auto* err = static_cast<const nlmsgerr*>(mnl_nlmsg_get_payload(nlh));
  if (err->error == 0) return Error{0, "ack"};
  if (err->error > 0 || err->error == INT_MIN) {
    return Error{EPROTO, "NLMSG_ERROR with invalid error code " + std::to_string(err->error)};
  }
  const int code = -err->error;
  std::string message = std::strerror(code);
  // Extended ack TLVs follow the nlmsgerr (and, unless the kernel capped it, the echoed request
  // payload) [src: include/uapi/linux/netlink.h, struct nlmsgerr].
  if ((nlh->nlmsg_flags & NLM_F_ACK_TLVS) != 0) {
    std::size_t offset = sizeof(nlmsgerr);
    const bool echoed_payload = (nlh->nlmsg_flags & NLM_F_CAPPED) == 0;
    if (echoed_payload && err->msg.nlmsg_len >= NLMSG_HDRLEN) {
      offset += err->msg.nlmsg_len - NLMSG_HDRLEN;
    }
    if (offset + NLMSG_HDRLEN <= nlh->nlmsg_len) {
      auto tlvs = parse_attrs(nlh, static_cast<unsigned>(offset), kExtackPolicy);
      if (tlvs.ok() && tlvs->tb[NLMSGERR_ATTR_MSG] != nullptr) {
        message += std::string(" (") + mnl_attr_get_str(tlvs->tb[NLMSGERR_ATTR_MSG]) + ")";
      }
    }
  }
  return Error{code, message};
}

/// The one message in `datagram` that answers request `seq` with type `type` and generic-netlink
/// command `cmd`. Other sequence numbers (a late answer to an earlier request) are skipped.
Result<std::vector<std::uint8_t>> find_genl_reply(std::span<const std::uint8_t> datagram,
                                                  std::uint32_t seq, std::uint16_t type,
                                                  std::uint8_t cmd) {
  const AlignedBuffer buf = aligned_copy(datagram);
  const auto* base = reinterpret_cast<const std::uint8_t*>(buf.data());
  // Walked by hand: libmnl's mnl_nlmsg_ok compares `(int)nlmsg_len`, so a length >= 2^31 in
  // damaged input would pass its check and send mnl_nlmsg_next far outside the buffer.
  std::size_t offset = 0;
  std::size_t remaining = datagram.size();
  while (remaining > 0) {
    const auto* nlh = reinterpret_cast<const nlmsghdr*>(base + offset);
    if (remaining < NLMSG_HDRLEN || nlh->nlmsg_len < NLMSG_HDRLEN || nlh->nlmsg_len > remaining) {
      break;
    }
    const std::size_t step = std::min<std::size_t>(NLMSG_ALIGN(nlh->nlmsg_len), remaining);
    offset += step;
    remaining -= step;
    if (nlh->nlmsg_seq != seq) continue;
    if (nlh->nlmsg_type == NLMSG_ERROR) {
      Error e = kernel_error(nlh);
      if (e.code == 0) continue;  // a plain ACK carries no data
      return e;
    }
    if (nlh->nlmsg_type == NLMSG_NOOP || nlh->nlmsg_type == NLMSG_DONE) continue;
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
    return message_bytes(nlh);
  }
  if (remaining > 0) {
    return Error{EPROTO, "truncated netlink message (" + std::to_string(remaining) +
                             " bytes do not form a message)"};
  }
  return Error{ENOMSG, "no reply to request " + std::to_string(seq)};
}

const nlmsghdr* as_nlmsg(const AlignedBuffer& buf) {
  return reinterpret_cast<const nlmsghdr*>(buf.data());
}

/// Starts a request with the netlink and generic-netlink headers in `buf`.
nlmsghdr* put_genl_header(AlignedBuffer& buf, std::uint16_t type, std::uint8_t cmd,
                          std::uint8_t version, std::uint32_t seq) {
  nlmsghdr* nlh = mnl_nlmsg_put_header(buf.data());
  nlh->nlmsg_type = type;
  nlh->nlmsg_flags = NLM_F_REQUEST;
  nlh->nlmsg_seq = seq;
  auto* genl = static_cast<genlmsghdr*>(mnl_nlmsg_put_extra_header(nlh, sizeof(genlmsghdr)));
  genl->cmd = cmd;
  genl->version = version;
  return nlh;
}

AlignedBuffer request_buffer(std::size_t string_len) {
  // Headers, two or three small attributes, and the string with its NUL and padding.
  return AlignedBuffer((256 + string_len) / sizeof(std::uint64_t) + 1, 0);
}

}  // namespace

std::vector<std::uint8_t> build_genl_family_request(std::string_view family, std::uint32_t seq) {
  AlignedBuffer buf = request_buffer(family.size());
  // The controller speaks version 1 [src: iproute2 lib/libgenl.c genl_resolve_family].
  nlmsghdr* nlh = put_genl_header(buf, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, seq);
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
  nlmsghdr* nlh = put_genl_header(buf, family_id, ETHTOOL_MSG_PAUSE_GET, ETHTOOL_GENL_VERSION, seq);
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
