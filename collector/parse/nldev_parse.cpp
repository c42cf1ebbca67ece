#include "collector/parse/nldev_parse.h"

#include <rdma/rdma_netlink.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <functional>
#include <set>
#include <string>

#include "collector/parse/netlink_parse.h"

namespace rdmatop {
namespace {

constexpr std::uint16_t nldev_type(std::uint16_t cmd) {
  return static_cast<std::uint16_t>(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd));
}

// The attributes rdmatop reads, with their kernel types (nldev_policy in core/nldev.c). PAD
// (0) has no entry: it only aligns the u64 after it.
constexpr std::size_t kNldevPolicySize = RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC + 1;
constexpr std::array<AttrSpec, kNldevPolicySize> kNldevPolicy = [] {
  std::array<AttrSpec, kNldevPolicySize> p{};
  p[RDMA_NLDEV_ATTR_DEV_INDEX] = {"DEV_INDEX", MNL_TYPE_U32};
  p[RDMA_NLDEV_ATTR_DEV_NAME] = {"DEV_NAME", MNL_TYPE_NUL_STRING};
  p[RDMA_NLDEV_ATTR_PORT_INDEX] = {"PORT_INDEX", MNL_TYPE_U32};
  p[RDMA_NLDEV_ATTR_FW_VERSION] = {"FW_VERSION", MNL_TYPE_NUL_STRING};
  p[RDMA_NLDEV_ATTR_NODE_GUID] = {"NODE_GUID", MNL_TYPE_U64};
  p[RDMA_NLDEV_ATTR_SYS_IMAGE_GUID] = {"SYS_IMAGE_GUID", MNL_TYPE_U64};
  p[RDMA_NLDEV_ATTR_PORT_STATE] = {"PORT_STATE", MNL_TYPE_U8};
  p[RDMA_NLDEV_ATTR_PORT_PHYS_STATE] = {"PORT_PHYS_STATE", MNL_TYPE_U8};
  p[RDMA_NLDEV_ATTR_DEV_NODE_TYPE] = {"DEV_NODE_TYPE", MNL_TYPE_U8};
  p[RDMA_NLDEV_ATTR_RES_SUMMARY] = {"RES_SUMMARY", MNL_TYPE_NESTED};
  p[RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY] = {"RES_SUMMARY_ENTRY", MNL_TYPE_NESTED};
  p[RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME] = {"RES_SUMMARY_ENTRY_NAME", MNL_TYPE_NUL_STRING};
  p[RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR] = {"RES_SUMMARY_ENTRY_CURR", MNL_TYPE_U64};
  p[RDMA_NLDEV_ATTR_NDEV_INDEX] = {"NDEV_INDEX", MNL_TYPE_U32};
  p[RDMA_NLDEV_ATTR_NDEV_NAME] = {"NDEV_NAME", MNL_TYPE_NUL_STRING};
  p[RDMA_NLDEV_ATTR_LINK_TYPE] = {"LINK_TYPE", MNL_TYPE_NUL_STRING};
  p[RDMA_NLDEV_ATTR_DEV_PROTOCOL] = {"DEV_PROTOCOL", MNL_TYPE_NUL_STRING};
  p[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS] = {"STAT_HWCOUNTERS", MNL_TYPE_NESTED};
  p[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY] = {"STAT_HWCOUNTER_ENTRY", MNL_TYPE_NESTED};
  p[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME] = {"STAT_HWCOUNTER_ENTRY_NAME", MNL_TYPE_NUL_STRING};
  p[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE] = {"STAT_HWCOUNTER_ENTRY_VALUE", MNL_TYPE_U64};
  p[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_INDEX] = {"STAT_HWCOUNTER_INDEX", MNL_TYPE_U32};
  p[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC] = {"STAT_HWCOUNTER_DYNAMIC", MNL_TYPE_U8};
  p[RDMA_NLDEV_ATTR_RES_QP] = {"RES_QP", MNL_TYPE_NESTED};
  p[RDMA_NLDEV_ATTR_RES_QP_ENTRY] = {"RES_QP_ENTRY", MNL_TYPE_NESTED};
  p[RDMA_NLDEV_ATTR_RES_CQ] = {"RES_CQ", MNL_TYPE_NESTED};
  p[RDMA_NLDEV_ATTR_RES_CQ_ENTRY] = {"RES_CQ_ENTRY", MNL_TYPE_NESTED};
  p[RDMA_NLDEV_ATTR_RES_MR] = {"RES_MR", MNL_TYPE_NESTED};
  p[RDMA_NLDEV_ATTR_RES_MR_ENTRY] = {"RES_MR_ENTRY", MNL_TYPE_NESTED};
  p[RDMA_NLDEV_ATTR_RES_PD] = {"RES_PD", MNL_TYPE_NESTED};
  p[RDMA_NLDEV_ATTR_RES_PD_ENTRY] = {"RES_PD_ENTRY", MNL_TYPE_NESTED};
  p[RDMA_NLDEV_ATTR_RES_PID] = {"RES_PID", MNL_TYPE_U32};
  p[RDMA_NLDEV_ATTR_RES_KERN_NAME] = {"RES_KERN_NAME", MNL_TYPE_NUL_STRING};
  p[RDMA_NLDEV_ATTR_RES_LQPN] = {"RES_LQPN", MNL_TYPE_U32};
  p[RDMA_NLDEV_ATTR_RES_TYPE] = {"RES_TYPE", MNL_TYPE_U8};
  p[RDMA_NLDEV_ATTR_STAT_MODE] = {"STAT_MODE", MNL_TYPE_U32};
  p[RDMA_NLDEV_ATTR_STAT_RES] = {"STAT_RES", MNL_TYPE_U32};
  p[RDMA_NLDEV_ATTR_STAT_AUTO_MODE_MASK] = {"STAT_AUTO_MODE_MASK", MNL_TYPE_U32};
  p[RDMA_NLDEV_ATTR_STAT_COUNTER] = {"STAT_COUNTER", MNL_TYPE_NESTED};
  p[RDMA_NLDEV_ATTR_STAT_COUNTER_ENTRY] = {"STAT_COUNTER_ENTRY", MNL_TYPE_NESTED};
  p[RDMA_NLDEV_ATTR_STAT_COUNTER_ID] = {"STAT_COUNTER_ID", MNL_TYPE_U32};
  return p;
}();

nlmsghdr* put_nldev_header(AlignedBuffer& buf, std::uint16_t cmd, std::uint16_t flags,
                           std::uint32_t seq) {
  nlmsghdr* nlh = mnl_nlmsg_put_header(buf.data());
  nlh->nlmsg_type = nldev_type(cmd);
  nlh->nlmsg_flags = flags;
  nlh->nlmsg_seq = seq;
  return nlh;
}

// NLM_F_ACK as iproute2 sets it (rd_prepare_msg): every reply then has a definite end.
constexpr std::uint16_t kDoitFlags = NLM_F_REQUEST | NLM_F_ACK;

std::vector<std::uint8_t> build_port_request(std::uint16_t cmd, std::uint16_t flags,
                                             std::uint32_t dev_index,
                                             std::optional<std::uint32_t> port, std::uint32_t seq) {
  AlignedBuffer buf = request_buffer(16);
  nlmsghdr* nlh = put_nldev_header(buf, cmd, flags, seq);
  mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, dev_index);
  if (port) mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, *port);
  return message_bytes(nlh);
}

/// STAT_GET about the port's QP counters (STAT_RES = RES_QP), attributes in iproute2's order;
/// `with_mode` adds the STAT_MODE whose presence asks for the mode. Any value does: iproute2
/// sends MANUAL.
std::vector<std::uint8_t> build_qp_stat_request(std::uint16_t flags, std::uint32_t dev_index,
                                                std::uint32_t port, bool with_mode,
                                                std::uint32_t seq) {
  AlignedBuffer buf = request_buffer(32);
  nlmsghdr* nlh = put_nldev_header(buf, RDMA_NLDEV_CMD_STAT_GET, flags, seq);
  mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, dev_index);
  mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, port);
  if (with_mode) mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_MODE, RDMA_COUNTER_MODE_MANUAL);
  mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_RES, RDMA_NLDEV_ATTR_RES_QP);
  return message_bytes(nlh);
}

template <class T>
std::optional<T> opt(const nlattr* a, T (*get)(const nlattr*)) {
  if (a == nullptr) return std::nullopt;
  return get(a);
}

/// Runs `fn` on the attribute table of every reply message of command `cmd`; the reply must
/// be complete (end in NLMSG_DONE or an ACK).
Result<bool> for_each_reply(std::span<const std::uint8_t> reply, std::uint32_t seq,
                            std::uint16_t cmd,
                            const std::function<std::optional<Error>(const AttrTable&)>& fn) {
  auto end = walk_messages(reply, seq, [&](const nlmsghdr* nlh) -> Result<WalkStep> {
    if (nlh->nlmsg_type != nldev_type(cmd)) {
      return Error{EPROTO, "unexpected netlink message type " + std::to_string(nlh->nlmsg_type)};
    }
    auto attrs = parse_attrs(nlh, 0, kNldevPolicy);
    if (!attrs) return attrs.error();
    if (auto e = fn(*attrs)) return *e;
    return WalkStep::next;
  });
  if (!end) return end.error();
  if (*end == WalkEnd::exhausted) {
    return Error{EPROTO,
                 "incomplete reply (no NLMSG_DONE or ACK for request " + std::to_string(seq) + ")"};
  }
  return true;
}

/// The one message answering a doit request (then its ACK), turned into a T by `fn`; `what`
/// names the command in errors.
template <class T>
Result<T> single_reply(std::span<const std::uint8_t> reply, std::uint32_t seq, std::uint16_t cmd,
                       const char* what, const std::function<Result<T>(const AttrTable&)>& fn) {
  std::optional<T> out;
  auto r = for_each_reply(reply, seq, cmd, [&](const AttrTable& msg) -> std::optional<Error> {
    if (out) return Error{EPROTO, std::string("more than one ") + what + " reply message"};
    auto value = fn(msg);
    if (!value) return value.error();
    out = std::move(value).value();
    return std::nullopt;
  });
  if (!r) return r.error();
  if (!out) return Error{EPROTO, std::string("no ") + what + " reply message"};
  return *std::move(out);
}

std::optional<Error> missing(const char* what) {
  return Error{EPROTO, std::string(what) + " missing from reply"};
}

/// The entries of the STAT_HWCOUNTERS nest, each parsed with kNldevPolicy.
Result<bool> for_each_hwcounter(const AttrTable& msg,
                                const std::function<std::optional<Error>(const AttrTable&)>& fn) {
  const nlattr* nest = msg.tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS];
  if (nest == nullptr) return *missing("STAT_HWCOUNTERS");
  return for_each_nested(nest, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY,
                         [&](const nlattr* entry) -> std::optional<Error> {
                           auto attrs = parse_nested(entry, kNldevPolicy);
                           if (!attrs) return attrs.error();
                           return fn(*attrs);
                         });
}

/// The STAT_HWCOUNTERS nest of `msg` (a message or a bound-counter entry) by counter name.
Result<CounterMap> hwcounter_values(const AttrTable& msg) {
  CounterMapBuilder counters;
  auto entries = for_each_hwcounter(msg, [&](const AttrTable& e) -> std::optional<Error> {
    // Both are required, as in iproute2 res_get_hwcounters.
    const nlattr* name = e.tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME];
    const nlattr* value = e.tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE];
    if (name == nullptr) return missing("STAT_HWCOUNTER_ENTRY_NAME");
    if (value == nullptr) return missing("STAT_HWCOUNTER_ENTRY_VALUE");
    counters.add(mnl_attr_get_str(name), mnl_attr_get_u64(value));
    return std::nullopt;
  });
  if (!entries) return entries.error();
  const std::size_t added = counters.added();
  CounterMap map = std::move(counters).finish();
  if (map.size() == added) return map;
  // A name came twice (the builder kept one): walked again to name it, on this error path only.
  std::set<std::string, std::less<>> seen;
  std::string repeated;
  (void)for_each_hwcounter(msg, [&](const AttrTable& e) -> std::optional<Error> {
    const char* name = mnl_attr_get_str(e.tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME]);
    if (repeated.empty() && !seen.emplace(name).second) repeated = name;
    return std::nullopt;
  });
  return Error{EPROTO, "duplicate hw counter " + repeated};
}

/// One STAT_COUNTER_ENTRY (nldev.c fill_res_counter_entry).
Result<BoundCounter> bound_counter(const AttrTable& e) {
  const auto& tb = e.tb;
  if (tb[RDMA_NLDEV_ATTR_STAT_COUNTER_ID] == nullptr) return *missing("STAT_COUNTER_ID");
  if (tb[RDMA_NLDEV_ATTR_STAT_MODE] == nullptr) return *missing("STAT_MODE");
  if (tb[RDMA_NLDEV_ATTR_RES_QP] == nullptr) return *missing("RES_QP");
  const nlattr* pid = tb[RDMA_NLDEV_ATTR_RES_PID];
  const nlattr* kern = tb[RDMA_NLDEV_ATTR_RES_KERN_NAME];
  if (pid != nullptr && kern != nullptr) {
    return Error{EPROTO, "STAT_COUNTER_ENTRY has both RES_PID and RES_KERN_NAME"};
  }
  BoundCounter c;
  c.id = mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_STAT_COUNTER_ID]);
  c.mode = mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_STAT_MODE]);
  c.qp_type = opt(tb[RDMA_NLDEV_ATTR_RES_TYPE], mnl_attr_get_u8);
  c.pid = opt(pid, mnl_attr_get_u32);
  c.kern_name = attr_string(kern);
  auto qps = for_each_nested(tb[RDMA_NLDEV_ATTR_RES_QP], RDMA_NLDEV_ATTR_RES_QP_ENTRY,
                             [&](const nlattr* entry) -> std::optional<Error> {
                               auto q = parse_nested(entry, kNldevPolicy);
                               if (!q) return q.error();
                               const nlattr* lqpn = q->tb[RDMA_NLDEV_ATTR_RES_LQPN];
                               if (lqpn == nullptr) return missing("RES_LQPN");
                               c.qpns.push_back(mnl_attr_get_u32(lqpn));
                               return std::nullopt;
                             });
  if (!qps) return qps.error();
  auto counters = hwcounter_values(e);
  if (!counters) return counters.error();
  c.hw_counters = std::move(counters).value();
  return c;
}

/// The command, table nest and entry type of each per-object dump (nldev.c fill_entries).
struct ResDump {
  std::uint16_t cmd;
  std::uint16_t table;
  std::uint16_t entry;
};

ResDump res_dump(NldevResKind kind) {
  switch (kind) {
    case NldevResKind::qp:
      return {RDMA_NLDEV_CMD_RES_QP_GET, RDMA_NLDEV_ATTR_RES_QP, RDMA_NLDEV_ATTR_RES_QP_ENTRY};
    case NldevResKind::cq:
      return {RDMA_NLDEV_CMD_RES_CQ_GET, RDMA_NLDEV_ATTR_RES_CQ, RDMA_NLDEV_ATTR_RES_CQ_ENTRY};
    case NldevResKind::mr:
      return {RDMA_NLDEV_CMD_RES_MR_GET, RDMA_NLDEV_ATTR_RES_MR, RDMA_NLDEV_ATTR_RES_MR_ENTRY};
    case NldevResKind::pd:
      break;
  }
  return {RDMA_NLDEV_CMD_RES_PD_GET, RDMA_NLDEV_ATTR_RES_PD, RDMA_NLDEV_ATTR_RES_PD_ENTRY};
}

}  // namespace

const char* to_string(NldevResKind kind) {
  switch (kind) {
    case NldevResKind::qp:
      return "qp";
    case NldevResKind::cq:
      return "cq";
    case NldevResKind::mr:
      return "mr";
    case NldevResKind::pd:
      break;
  }
  return "pd";
}

std::vector<std::uint8_t> build_dev_get_request(std::uint32_t seq) {
  AlignedBuffer buf = request_buffer(0);
  return message_bytes(put_nldev_header(buf, RDMA_NLDEV_CMD_GET, kNetlinkDumpFlags, seq));
}

std::vector<std::uint8_t> build_port_get_request(std::uint32_t dev_index, std::uint32_t seq) {
  return build_port_request(RDMA_NLDEV_CMD_PORT_GET, kNetlinkDumpFlags, dev_index, std::nullopt,
                            seq);
}

std::vector<std::uint8_t> build_stat_get_request(std::uint32_t dev_index, std::uint32_t port,
                                                 std::uint32_t seq) {
  // No STAT_RES: the kernel answers with the port's default counter, i.e. the same values as
  // sysfs hw_counters/ (nldev.c stat_get_doit_default_counter).
  return build_port_request(RDMA_NLDEV_CMD_STAT_GET, kDoitFlags, dev_index, port, seq);
}

std::vector<std::uint8_t> build_stat_get_status_request(std::uint32_t dev_index, std::uint32_t port,
                                                        std::uint32_t seq) {
  return build_port_request(RDMA_NLDEV_CMD_STAT_GET_STATUS, kDoitFlags, dev_index, port, seq);
}

std::vector<std::uint8_t> build_res_get_request(std::uint32_t seq) {
  AlignedBuffer buf = request_buffer(0);
  return message_bytes(put_nldev_header(buf, RDMA_NLDEV_CMD_RES_GET, kNetlinkDumpFlags, seq));
}

std::vector<std::uint8_t> build_res_dump_request(NldevResKind kind, std::uint32_t dev_index,
                                                 std::uint32_t seq) {
  return build_port_request(res_dump(kind).cmd, kNetlinkDumpFlags, dev_index, std::nullopt, seq);
}

std::vector<std::uint8_t> build_qp_counter_mode_request(std::uint32_t dev_index, std::uint32_t port,
                                                        std::uint32_t seq) {
  return build_qp_stat_request(kDoitFlags, dev_index, port, true, seq);
}

std::vector<std::uint8_t> build_bound_counters_request(std::uint32_t dev_index, std::uint32_t port,
                                                       std::uint32_t seq) {
  return build_qp_stat_request(kNetlinkDumpFlags, dev_index, port, false, seq);
}

std::vector<std::uint8_t> build_qp_counter_bind_request(std::uint32_t dev_index, std::uint32_t port,
                                                        std::uint32_t qpn, std::uint32_t seq) {
  AlignedBuffer buf = request_buffer(40);
  nlmsghdr* nlh = put_nldev_header(buf, RDMA_NLDEV_CMD_STAT_SET, kDoitFlags, seq);
  mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_MODE, RDMA_COUNTER_MODE_MANUAL);
  mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_RES, RDMA_NLDEV_ATTR_RES_QP);
  mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, dev_index);
  mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, port);
  mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_LQPN, qpn);
  return message_bytes(nlh);
}

bool nldev_reply_complete(std::span<const std::uint8_t> reply, std::uint32_t seq) {
  auto end =
      walk_messages(reply, seq, [](const nlmsghdr*) -> Result<WalkStep> { return WalkStep::next; });
  return !end || *end != WalkEnd::exhausted;
}

Result<std::vector<NldevDevice>> parse_dev_get_reply(std::span<const std::uint8_t> reply,
                                                     std::uint32_t seq) {
  std::vector<NldevDevice> out;
  auto r = for_each_reply(
      reply, seq, RDMA_NLDEV_CMD_GET, [&](const AttrTable& a) -> std::optional<Error> {
        const auto& tb = a.tb;
        if (tb[RDMA_NLDEV_ATTR_DEV_INDEX] == nullptr) {
          return missing("DEV_INDEX");
        }
        if (tb[RDMA_NLDEV_ATTR_DEV_NAME] == nullptr) {
          return missing("DEV_NAME");
        }
        NldevDevice d;
        d.index = mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
        d.name = attr_string(tb[RDMA_NLDEV_ATTR_DEV_NAME]);
        if (const nlattr* p = tb[RDMA_NLDEV_ATTR_PORT_INDEX]) {
          d.port_count = mnl_attr_get_u32(p);
        }
        d.fw_version = attr_string(tb[RDMA_NLDEV_ATTR_FW_VERSION]);
        d.node_guid = opt(tb[RDMA_NLDEV_ATTR_NODE_GUID], mnl_attr_get_u64);
        d.sys_image_guid = opt(tb[RDMA_NLDEV_ATTR_SYS_IMAGE_GUID], mnl_attr_get_u64);
        d.node_type = opt(tb[RDMA_NLDEV_ATTR_DEV_NODE_TYPE], mnl_attr_get_u8);
        d.protocol = attr_string(tb[RDMA_NLDEV_ATTR_DEV_PROTOCOL]);
        d.link_type = attr_string(tb[RDMA_NLDEV_ATTR_LINK_TYPE]);
        out.push_back(std::move(d));
        return std::nullopt;
      });
  if (!r) return r.error();
  return out;
}

Result<std::vector<NldevPort>> parse_port_get_reply(std::span<const std::uint8_t> reply,
                                                    std::uint32_t seq) {
  std::vector<NldevPort> out;
  auto r = for_each_reply(
      reply, seq, RDMA_NLDEV_CMD_PORT_GET, [&](const AttrTable& a) -> std::optional<Error> {
        const auto& tb = a.tb;
        if (tb[RDMA_NLDEV_ATTR_DEV_INDEX] == nullptr) return missing("DEV_INDEX");
        if (tb[RDMA_NLDEV_ATTR_PORT_INDEX] == nullptr) return missing("PORT_INDEX");
        NldevPort p;
        p.dev_index = mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
        p.dev_name = attr_string(tb[RDMA_NLDEV_ATTR_DEV_NAME]);
        p.port = mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
        p.state = opt(tb[RDMA_NLDEV_ATTR_PORT_STATE], mnl_attr_get_u8);
        p.phys_state = opt(tb[RDMA_NLDEV_ATTR_PORT_PHYS_STATE], mnl_attr_get_u8);
        // Omitted when the netdev is in another network namespace (nldev.c fill_port_info).
        p.netdev_index = opt(tb[RDMA_NLDEV_ATTR_NDEV_INDEX], mnl_attr_get_u32);
        p.netdev_name = attr_string(tb[RDMA_NLDEV_ATTR_NDEV_NAME]);
        out.push_back(std::move(p));
        return std::nullopt;
      });
  if (!r) return r.error();
  return out;
}

Result<CounterMap> parse_stat_get_reply(std::span<const std::uint8_t> reply, std::uint32_t seq) {
  return single_reply<CounterMap>(reply, seq, RDMA_NLDEV_CMD_STAT_GET, "STAT_GET",
                                  hwcounter_values);
}

Result<std::vector<NldevCounterStatus>> parse_stat_get_status_reply(
    std::span<const std::uint8_t> reply, std::uint32_t seq) {
  return single_reply<std::vector<NldevCounterStatus>>(
      reply, seq, RDMA_NLDEV_CMD_STAT_GET_STATUS, "STAT_GET_STATUS",
      [](const AttrTable& msg) -> Result<std::vector<NldevCounterStatus>> {
        std::vector<NldevCounterStatus> list;
        auto entries = for_each_hwcounter(msg, [&](const AttrTable& e) -> std::optional<Error> {
          const nlattr* name = e.tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME];
          const nlattr* index = e.tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_INDEX];
          if (name == nullptr) return missing("STAT_HWCOUNTER_ENTRY_NAME");
          if (index == nullptr) return missing("STAT_HWCOUNTER_INDEX");
          NldevCounterStatus s{mnl_attr_get_str(name), mnl_attr_get_u32(index), std::nullopt};
          // DYNAMIC is sent only for optional counters (nldev.c
          // nldev_stat_get_counter_status_doit).
          if (const nlattr* dyn = e.tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC]) {
            s.enabled = mnl_attr_get_u8(dyn) != 0;
          }
          list.push_back(std::move(s));
          return std::nullopt;
        });
        if (!entries) return entries.error();
        return list;
      });
}

Result<std::vector<NldevResources>> parse_res_get_reply(std::span<const std::uint8_t> reply,
                                                        std::uint32_t seq) {
  std::vector<NldevResources> out;
  auto r = for_each_reply(
      reply, seq, RDMA_NLDEV_CMD_RES_GET, [&](const AttrTable& msg) -> std::optional<Error> {
        if (msg.tb[RDMA_NLDEV_ATTR_DEV_INDEX] == nullptr) return missing("DEV_INDEX");
        const nlattr* summary = msg.tb[RDMA_NLDEV_ATTR_RES_SUMMARY];
        if (summary == nullptr) return missing("RES_SUMMARY");
        NldevResources res;
        res.dev_index = mnl_attr_get_u32(msg.tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
        res.dev_name = attr_string(msg.tb[RDMA_NLDEV_ATTR_DEV_NAME]);
        auto entries =
            for_each_nested(summary, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY, [&](const nlattr* entry) {
              auto e = parse_nested(entry, kNldevPolicy);
              if (!e) return std::optional<Error>(e.error());
              const nlattr* name = e->tb[RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME];
              const nlattr* curr = e->tb[RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR];
              if (name == nullptr) return missing("RES_SUMMARY_ENTRY_NAME");
              if (curr == nullptr) return missing("RES_SUMMARY_ENTRY_CURR");
              res.counts[mnl_attr_get_str(name)] = mnl_attr_get_u64(curr);
              return std::optional<Error>();
            });
        if (!entries) return entries.error();
        out.push_back(std::move(res));
        return std::nullopt;
      });
  if (!r) return r.error();
  return out;
}

Result<std::vector<NldevResOwner>> parse_res_dump_reply(NldevResKind kind,
                                                        std::span<const std::uint8_t> reply,
                                                        std::uint32_t seq) {
  const ResDump dump = res_dump(kind);
  std::vector<NldevResOwner> out;
  auto r = for_each_reply(reply, seq, dump.cmd, [&](const AttrTable& msg) -> std::optional<Error> {
    if (msg.tb[RDMA_NLDEV_ATTR_DEV_INDEX] == nullptr) return missing("DEV_INDEX");
    const nlattr* table = msg.tb[dump.table];
    if (table == nullptr) return missing(kNldevPolicy[dump.table].name);
    const std::uint32_t dev_index = mnl_attr_get_u32(msg.tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
    const std::string dev_name = attr_string(msg.tb[RDMA_NLDEV_ATTR_DEV_NAME]);
    auto entries = for_each_nested(table, dump.entry, [&](const nlattr* entry) {
      auto e = parse_nested(entry, kNldevPolicy);
      if (!e) return std::optional<Error>(e.error());
      // fill_res_name_pid puts exactly one of the two.
      const nlattr* pid = e->tb[RDMA_NLDEV_ATTR_RES_PID];
      const nlattr* kern = e->tb[RDMA_NLDEV_ATTR_RES_KERN_NAME];
      if ((pid == nullptr) == (kern == nullptr)) {
        return std::optional<Error>(Error{EPROTO, std::string(kNldevPolicy[dump.entry].name) +
                                                      " needs one of RES_PID, RES_KERN_NAME"});
      }
      out.push_back(
          NldevResOwner{dev_index, dev_name, opt(pid, mnl_attr_get_u32), attr_string(kern)});
      return std::optional<Error>();
    });
    if (!entries) return entries.error();
    return std::nullopt;
  });
  if (!r) return r.error();
  return out;
}

Result<NldevQpCounterMode> parse_qp_counter_mode_reply(std::span<const std::uint8_t> reply,
                                                       std::uint32_t seq) {
  return single_reply<NldevQpCounterMode>(
      reply, seq, RDMA_NLDEV_CMD_STAT_GET, "STAT_GET",
      [](const AttrTable& msg) -> Result<NldevQpCounterMode> {
        const auto& tb = msg.tb;
        if (tb[RDMA_NLDEV_ATTR_DEV_INDEX] == nullptr) return *missing("DEV_INDEX");
        if (tb[RDMA_NLDEV_ATTR_PORT_INDEX] == nullptr) return *missing("PORT_INDEX");
        if (tb[RDMA_NLDEV_ATTR_STAT_MODE] == nullptr) return *missing("STAT_MODE");
        NldevQpCounterMode m;
        m.dev_index = mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
        m.dev_name = attr_string(tb[RDMA_NLDEV_ATTR_DEV_NAME]);
        m.port = mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
        m.mode.mode = mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_STAT_MODE]);
        if (const nlattr* mask = tb[RDMA_NLDEV_ATTR_STAT_AUTO_MODE_MASK]) {
          m.mode.auto_mask = mnl_attr_get_u32(mask);
        } else if (m.mode.mode == RDMA_COUNTER_MODE_AUTO) {
          return *missing("STAT_AUTO_MODE_MASK");
        }
        return m;
      });
}

Result<std::vector<NldevBoundCounter>> parse_bound_counters_reply(
    std::span<const std::uint8_t> reply, std::uint32_t seq) {
  std::vector<NldevBoundCounter> out;
  auto r = for_each_reply(
      reply, seq, RDMA_NLDEV_CMD_STAT_GET, [&](const AttrTable& msg) -> std::optional<Error> {
        if (msg.tb[RDMA_NLDEV_ATTR_DEV_INDEX] == nullptr) return missing("DEV_INDEX");
        const nlattr* table = msg.tb[RDMA_NLDEV_ATTR_STAT_COUNTER];
        if (table == nullptr) return missing("STAT_COUNTER");
        const std::uint32_t dev_index = mnl_attr_get_u32(msg.tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
        const std::string dev_name = attr_string(msg.tb[RDMA_NLDEV_ATTR_DEV_NAME]);
        auto entries =
            for_each_nested(table, RDMA_NLDEV_ATTR_STAT_COUNTER_ENTRY, [&](const nlattr* entry) {
              auto e = parse_nested(entry, kNldevPolicy);
              if (!e) return std::optional<Error>(e.error());
              const nlattr* port = e->tb[RDMA_NLDEV_ATTR_PORT_INDEX];
              if (port == nullptr) return missing("PORT_INDEX");
              auto counter = bound_counter(*e);
              if (!counter) return std::optional<Error>(counter.error());
              out.push_back(NldevBoundCounter{dev_index, dev_name, mnl_attr_get_u32(port),
                                              std::move(counter).value()});
              return std::optional<Error>();
            });
        if (!entries) return entries.error();
        return std::nullopt;
      });
  if (!r) return r.error();
  return out;
}

Result<NldevQpCounterBinding> parse_qp_counter_bind_reply(std::span<const std::uint8_t> reply,
                                                          std::uint32_t seq) {
  return single_reply<NldevQpCounterBinding>(
      reply, seq, RDMA_NLDEV_CMD_STAT_SET, "STAT_SET",
      [](const AttrTable& msg) -> Result<NldevQpCounterBinding> {
        // nldev_stat_set_doit puts the device handle and port, nldev_stat_set_mode_doit the
        // counter and the QP.
        const auto& tb = msg.tb;
        if (tb[RDMA_NLDEV_ATTR_DEV_INDEX] == nullptr) return *missing("DEV_INDEX");
        if (tb[RDMA_NLDEV_ATTR_PORT_INDEX] == nullptr) return *missing("PORT_INDEX");
        if (tb[RDMA_NLDEV_ATTR_STAT_COUNTER_ID] == nullptr) return *missing("STAT_COUNTER_ID");
        if (tb[RDMA_NLDEV_ATTR_RES_LQPN] == nullptr) return *missing("RES_LQPN");
        NldevQpCounterBinding b;
        b.dev_index = mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
        b.dev_name = attr_string(tb[RDMA_NLDEV_ATTR_DEV_NAME]);
        b.port = mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
        b.counter_id = mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_STAT_COUNTER_ID]);
        b.qpn = mnl_attr_get_u32(tb[RDMA_NLDEV_ATTR_RES_LQPN]);
        return b;
      });
}

std::string format_guid(std::uint64_t guid) {
  std::array<char, 20> buf{};
  std::snprintf(buf.data(), buf.size(), "%04x:%04x:%04x:%04x",
                static_cast<unsigned>((guid >> 48) & 0xffff),
                static_cast<unsigned>((guid >> 32) & 0xffff),
                static_cast<unsigned>((guid >> 16) & 0xffff), static_cast<unsigned>(guid & 0xffff));
  return buf.data();
}

}  // namespace rdmatop
