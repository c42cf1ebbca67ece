#include "collector/parse/dcbnl_parse.h"

#include <libmnl/libmnl.h>
#include <linux/dcbnl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <functional>
#include <optional>

#include "collector/parse/netlink_parse.h"

namespace rdmatop {
namespace {

// Newer than the uAPI header Debian 12 ships (6.1); the enums are ABI and append-only
// [src: include/uapi/linux/dcbnl.h, kernel 6.2+]: enum ieee_attrs gained
// DCB_ATTR_DCB_APP_TRUST_TABLE after DCB_ATTR_DCB_BUFFER, enum ieee_attrs_app gained
// DCB_ATTR_DCB_APP (non-IEEE selectors) after DCB_ATTR_IEEE_APP, and DCB_APP_SEL_PCP is 255.
constexpr std::uint16_t kAttrAppTrustTable = DCB_ATTR_DCB_BUFFER + 1;
constexpr std::uint16_t kAttrDcbApp = DCB_ATTR_IEEE_APP + 1;
constexpr std::uint8_t kSelPcp = 255;

constexpr std::array<AttrSpec, DCB_ATTR_IEEE + 1> kTopPolicy = [] {
  std::array<AttrSpec, DCB_ATTR_IEEE + 1> p{};
  p[DCB_ATTR_IFNAME] = {"DCB_ATTR_IFNAME", MNL_TYPE_NUL_STRING};
  p[DCB_ATTR_IEEE] = {"DCB_ATTR_IEEE", MNL_TYPE_NESTED};
  return p;
}();

constexpr std::array<AttrSpec, kAttrAppTrustTable + 1> kIeeePolicy = [] {
  std::array<AttrSpec, kAttrAppTrustTable + 1> p{};
  p[DCB_ATTR_IEEE_ETS] = {"DCB_ATTR_IEEE_ETS", MNL_TYPE_BINARY};
  p[DCB_ATTR_IEEE_PFC] = {"DCB_ATTR_IEEE_PFC", MNL_TYPE_BINARY};
  p[DCB_ATTR_IEEE_APP_TABLE] = {"DCB_ATTR_IEEE_APP_TABLE", MNL_TYPE_NESTED};
  p[kAttrAppTrustTable] = {"DCB_ATTR_DCB_APP_TRUST_TABLE", MNL_TYPE_NESTED};
  return p;
}();

/// The fixed-size struct carried by `attr`; shorter payloads are EPROTO. Longer ones are
/// accepted (a future kernel may append fields), the known prefix is read.
template <class T>
Result<T> read_struct(const nlattr* attr, const char* what) {
  if (mnl_attr_get_payload_len(attr) < sizeof(T)) {
    return Error{EPROTO, std::string(what) + ": " + std::to_string(mnl_attr_get_payload_len(attr)) +
                             " bytes, expected " + std::to_string(sizeof(T))};
  }
  T value{};
  std::memcpy(&value, mnl_attr_get_payload(attr), sizeof(T));
  return value;
}

Result<bool> read_pfc(const nlattr* attr, DcbInfo& out) {
  auto pfc = read_struct<ieee_pfc>(attr, "DCB_ATTR_IEEE_PFC");
  if (!pfc) return pfc.error();
  out.pfc_enabled = pfc->pfc_en;
  out.pfc_cap = pfc->pfc_cap;
  out.pfc_delay = pfc->delay;
  out.pfc_requests.assign(std::begin(pfc->requests), std::end(pfc->requests));
  out.pfc_indications.assign(std::begin(pfc->indications), std::end(pfc->indications));
  return true;
}

Result<bool> read_ets(const nlattr* attr, DcbInfo& out) {
  auto ets = read_struct<ieee_ets>(attr, "DCB_ATTR_IEEE_ETS");
  if (!ets) return ets.error();
  out.ets_prio_tc.assign(std::begin(ets->prio_tc), std::end(ets->prio_tc));
  out.ets_tc_bw.assign(std::begin(ets->tc_tx_bw), std::end(ets->tc_tx_bw));
  out.ets_tc_tsa.assign(std::begin(ets->tc_tsa), std::end(ets->tc_tsa));
  return true;
}

/// Calls `fn` for each entry of `nest` of type DCB_ATTR_IEEE_APP or DCB_ATTR_DCB_APP, in order
/// (both carry the same payloads; the second is for non-IEEE selectors such as PCP, and the
/// trust table's order is its meaning).
Result<bool> for_each_app_entry(const nlattr* nest,
                                const std::function<std::optional<Error>(const nlattr*)>& fn) {
  struct State {
    const std::function<std::optional<Error>(const nlattr*)>* fn;
    std::optional<Error> error;
  } state{&fn, std::nullopt};
  const auto cb = [](const nlattr* attr, void* data) -> int {
    auto* s = static_cast<State*>(data);
    const std::uint16_t type = mnl_attr_get_type(attr);
    if (type != DCB_ATTR_IEEE_APP && type != kAttrDcbApp) return MNL_CB_OK;
    s->error = (*s->fn)(attr);
    return s->error ? MNL_CB_ERROR : MNL_CB_OK;
  };
  if (mnl_attr_parse_nested(nest, cb, &state) < 0) {
    return state.error ? *state.error : Error{EPROTO, "malformed DCB APP nest"};
  }
  return true;
}

}  // namespace

std::vector<std::uint8_t> build_dcb_ieee_get_request(std::string_view ifname, std::uint32_t seq) {
  AlignedBuffer buf = request_buffer(ifname.size());
  nlmsghdr* nlh = mnl_nlmsg_put_header(buf.data());
  nlh->nlmsg_type = RTM_GETDCB;
  // A doit: one RTM_GETDCB reply, then the ACK gives the answer a definite end.
  nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
  nlh->nlmsg_seq = seq;
  auto* dcb = static_cast<dcbmsg*>(mnl_nlmsg_put_extra_header(nlh, sizeof(dcbmsg)));
  dcb->dcb_family = AF_UNSPEC;
  dcb->cmd = DCB_CMD_IEEE_GET;
  mnl_attr_put_strz(nlh, DCB_ATTR_IFNAME, std::string(ifname).c_str());
  return message_bytes(nlh);
}

bool dcb_reply_complete(std::span<const std::uint8_t> reply, std::uint32_t seq) {
  auto end =
      walk_messages(reply, seq, [](const nlmsghdr*) -> Result<WalkStep> { return WalkStep::next; });
  return !end || *end != WalkEnd::exhausted;
}

Result<DcbInfo> parse_dcb_ieee_reply(std::span<const std::uint8_t> reply, std::uint32_t seq) {
  std::optional<DcbInfo> out;
  auto end = walk_messages(reply, seq, [&](const nlmsghdr* nlh) -> Result<WalkStep> {
    if (nlh->nlmsg_type != RTM_GETDCB) {
      return Error{EPROTO, "unexpected netlink message type " + std::to_string(nlh->nlmsg_type)};
    }
    if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(dcbmsg)) {
      return Error{EPROTO, "truncated dcbmsg header"};
    }
    const auto* dcb = static_cast<const dcbmsg*>(mnl_nlmsg_get_payload(nlh));
    if (dcb->cmd != DCB_CMD_IEEE_GET) {
      return Error{EPROTO, "unexpected DCB command " + std::to_string(dcb->cmd)};
    }
    if (out) return Error{EPROTO, "more than one DCB_CMD_IEEE_GET reply message"};
    auto top = parse_attrs(nlh, sizeof(dcbmsg), kTopPolicy);
    if (!top) return top.error();
    if (top->tb[DCB_ATTR_IEEE] == nullptr) {
      return Error{EPROTO, "DCB_ATTR_IEEE missing from reply"};
    }
    auto ieee = parse_nested(top->tb[DCB_ATTR_IEEE], kIeeePolicy);
    if (!ieee) return ieee.error();
    DcbInfo info;
    if (const nlattr* pfc = ieee->tb[DCB_ATTR_IEEE_PFC]) {
      if (auto r = read_pfc(pfc, info); !r) return r.error();
    }
    if (const nlattr* ets = ieee->tb[DCB_ATTR_IEEE_ETS]) {
      if (auto r = read_ets(ets, info); !r) return r.error();
    }
    if (const nlattr* table = ieee->tb[DCB_ATTR_IEEE_APP_TABLE]) {
      auto r = for_each_app_entry(table, [&](const nlattr* entry) -> std::optional<Error> {
        auto app = read_struct<dcb_app>(entry, "DCB_ATTR_IEEE_APP");
        if (!app) return app.error();
        info.app.push_back(DcbAppEntry{app->selector, app->protocol, app->priority});
        return std::nullopt;
      });
      if (!r) return r.error();
    }
    if (const nlattr* trust = ieee->tb[kAttrAppTrustTable]) {
      // Selectors in order of precedence, one u8 each (net/dcb/dcbnl.c dcbnl_getapptrust).
      auto r = for_each_app_entry(trust, [&](const nlattr* entry) -> std::optional<Error> {
        if (mnl_attr_validate(entry, MNL_TYPE_U8) < 0) {
          return Error{EPROTO, "DCB_ATTR_DCB_APP_TRUST_TABLE: invalid selector attribute"};
        }
        if (!info.trust.empty()) info.trust += ' ';
        info.trust += dcb_selector_name(mnl_attr_get_u8(entry));
        return std::nullopt;
      });
      if (!r) return r.error();
    }
    out = std::move(info);
    return WalkStep::next;
  });
  if (!end) return end.error();
  if (*end == WalkEnd::exhausted) {
    return Error{EPROTO, "incomplete reply (no ACK for request " + std::to_string(seq) + ")"};
  }
  if (!out) return Error{EPROTO, "no DCB_CMD_IEEE_GET reply message"};
  return *std::move(out);
}

std::string dcb_selector_name(std::uint8_t selector) {
  switch (selector) {
    case IEEE_8021QAZ_APP_SEL_ETHERTYPE:
      return "ethtype";
    case IEEE_8021QAZ_APP_SEL_STREAM:
      return "stream-port";
    case IEEE_8021QAZ_APP_SEL_DGRAM:
      return "dgram-port";
    case IEEE_8021QAZ_APP_SEL_ANY:
      return "port";
    case IEEE_8021QAZ_APP_SEL_DSCP:
      return "dscp";
    case kSelPcp:
      return "pcp";
    default:
      return std::to_string(selector);
  }
}

}  // namespace rdmatop
