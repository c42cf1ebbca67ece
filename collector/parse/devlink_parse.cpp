#include "collector/parse/devlink_parse.h"

#include <libmnl/libmnl.h>
#include <linux/devlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <array>
#include <cerrno>
#include <functional>
#include <map>
#include <string>

#include "collector/parse/netlink_parse.h"

namespace rdmatop {
namespace {

// The attributes rdmatop reads with their kernel types (include/uapi/linux/devlink.h comments;
// net/devlink/netlink_gen.c). PAD has no entry: it only aligns the u64 after it.
constexpr std::size_t kDevlinkPolicySize = DEVLINK_ATTR_INFO_BOARD_SERIAL_NUMBER + 1;
constexpr std::array<AttrSpec, kDevlinkPolicySize> kDevlinkPolicy = [] {
  std::array<AttrSpec, kDevlinkPolicySize> p{};
  p[DEVLINK_ATTR_BUS_NAME] = {"BUS_NAME", MNL_TYPE_NUL_STRING};
  p[DEVLINK_ATTR_DEV_NAME] = {"DEV_NAME", MNL_TYPE_NUL_STRING};
  p[DEVLINK_ATTR_PORT_INDEX] = {"PORT_INDEX", MNL_TYPE_U32};
  p[DEVLINK_ATTR_INFO_DRIVER_NAME] = {"INFO_DRIVER_NAME", MNL_TYPE_NUL_STRING};
  p[DEVLINK_ATTR_INFO_SERIAL_NUMBER] = {"INFO_SERIAL_NUMBER", MNL_TYPE_NUL_STRING};
  p[DEVLINK_ATTR_INFO_VERSION_FIXED] = {"INFO_VERSION_FIXED", MNL_TYPE_NESTED};
  p[DEVLINK_ATTR_INFO_VERSION_RUNNING] = {"INFO_VERSION_RUNNING", MNL_TYPE_NESTED};
  p[DEVLINK_ATTR_INFO_VERSION_STORED] = {"INFO_VERSION_STORED", MNL_TYPE_NESTED};
  p[DEVLINK_ATTR_INFO_VERSION_NAME] = {"INFO_VERSION_NAME", MNL_TYPE_NUL_STRING};
  p[DEVLINK_ATTR_INFO_VERSION_VALUE] = {"INFO_VERSION_VALUE", MNL_TYPE_NUL_STRING};
  p[DEVLINK_ATTR_HEALTH_REPORTER] = {"HEALTH_REPORTER", MNL_TYPE_NESTED};
  p[DEVLINK_ATTR_HEALTH_REPORTER_NAME] = {"HEALTH_REPORTER_NAME", MNL_TYPE_NUL_STRING};
  p[DEVLINK_ATTR_HEALTH_REPORTER_STATE] = {"HEALTH_REPORTER_STATE", MNL_TYPE_U8};
  p[DEVLINK_ATTR_HEALTH_REPORTER_ERR_COUNT] = {"HEALTH_REPORTER_ERR_COUNT", MNL_TYPE_U64};
  p[DEVLINK_ATTR_HEALTH_REPORTER_RECOVER_COUNT] = {"HEALTH_REPORTER_RECOVER_COUNT", MNL_TYPE_U64};
  p[DEVLINK_ATTR_HEALTH_REPORTER_DUMP_TS] = {"HEALTH_REPORTER_DUMP_TS", MNL_TYPE_U64};
  p[DEVLINK_ATTR_HEALTH_REPORTER_GRACEFUL_PERIOD] = {"HEALTH_REPORTER_GRACEFUL_PERIOD",
                                                     MNL_TYPE_U64};
  p[DEVLINK_ATTR_HEALTH_REPORTER_AUTO_RECOVER] = {"HEALTH_REPORTER_AUTO_RECOVER", MNL_TYPE_U8};
  p[DEVLINK_ATTR_HEALTH_REPORTER_AUTO_DUMP] = {"HEALTH_REPORTER_AUTO_DUMP", MNL_TYPE_U8};
  p[DEVLINK_ATTR_INFO_BOARD_SERIAL_NUMBER] = {"INFO_BOARD_SERIAL_NUMBER", MNL_TYPE_NUL_STRING};
  return p;
}();

std::vector<std::uint8_t> build_dump(std::uint16_t family_id, std::uint8_t cmd, std::uint32_t seq) {
  AlignedBuffer buf = request_buffer(0);
  return message_bytes(
      start_genl_request(buf, family_id, cmd, DEVLINK_GENL_VERSION, kNetlinkDumpFlags, seq));
}

std::optional<Error> devlink_missing(const char* what) {
  return Error{EPROTO, std::string(what) + " missing from devlink reply"};
}

/// Runs `fn` on the attributes of every message answering `seq` with devlink command `cmd`;
/// the reply must be complete.
Result<bool> for_each_reply(
    std::span<const std::uint8_t> reply, std::uint16_t family_id, std::uint32_t seq,
    std::uint8_t cmd,
    const std::function<std::optional<Error>(const nlmsghdr*, const AttrTable&)>& fn) {
  auto end = walk_messages(reply, seq, [&](const nlmsghdr* nlh) -> Result<WalkStep> {
    if (nlh->nlmsg_type != family_id) {
      return Error{EPROTO, "unexpected netlink message type " + std::to_string(nlh->nlmsg_type)};
    }
    if (nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN) {
      return Error{EPROTO, "truncated generic netlink header"};
    }
    const auto* genl = static_cast<const genlmsghdr*>(mnl_nlmsg_get_payload(nlh));
    if (genl->cmd != cmd) {
      return Error{EPROTO, "unexpected devlink command " + std::to_string(genl->cmd)};
    }
    auto attrs = parse_attrs(nlh, GENL_HDRLEN, kDevlinkPolicy);
    if (!attrs) return attrs.error();
    if (auto e = fn(nlh, *attrs)) return *e;
    return WalkStep::next;
  });
  if (!end) return end.error();
  if (*end == WalkEnd::exhausted) {
    return Error{EPROTO,
                 "incomplete reply (no NLMSG_DONE or ACK for request " + std::to_string(seq) + ")"};
  }
  return true;
}

using VersionMap = std::map<std::string, std::string, std::less<>>;

/// Every INFO_VERSION_`type` nest ({NAME, VALUE}) of the message. They repeat at the top level,
/// one per version (devlink_info_version_put in net/devlink/dev.c), so the message is walked
/// again: the table keeps only the last one. parse_attrs has validated each of them already.
std::optional<Error> read_versions(const nlmsghdr* nlh, std::uint16_t type, VersionMap& into) {
  struct State {
    std::uint16_t type;
    VersionMap* into;
    std::optional<Error> error;
  } state{type, &into, std::nullopt};
  const auto cb = [](const nlattr* attr, void* data) -> int {
    auto* s = static_cast<State*>(data);
    if (mnl_attr_get_type(attr) != s->type) return MNL_CB_OK;
    auto v = parse_nested(attr, kDevlinkPolicy);
    if (!v) {
      s->error = v.error();
    } else if (v->tb[DEVLINK_ATTR_INFO_VERSION_NAME] == nullptr) {
      s->error = devlink_missing("INFO_VERSION_NAME");
    } else if (v->tb[DEVLINK_ATTR_INFO_VERSION_VALUE] == nullptr) {
      s->error = devlink_missing("INFO_VERSION_VALUE");
    } else {
      (*s->into)[mnl_attr_get_str(v->tb[DEVLINK_ATTR_INFO_VERSION_NAME])] =
          mnl_attr_get_str(v->tb[DEVLINK_ATTR_INFO_VERSION_VALUE]);
    }
    return s->error ? MNL_CB_ERROR : MNL_CB_OK;
  };
  mnl_attr_parse(nlh, GENL_HDRLEN, cb, &state);
  return state.error;
}

}  // namespace

std::vector<std::uint8_t> build_devlink_info_request(std::uint16_t family_id, std::uint32_t seq) {
  return build_dump(family_id, DEVLINK_CMD_INFO_GET, seq);
}

std::vector<std::uint8_t> build_devlink_health_request(std::uint16_t family_id, std::uint32_t seq) {
  return build_dump(family_id, DEVLINK_CMD_HEALTH_REPORTER_GET, seq);
}

bool devlink_reply_complete(std::span<const std::uint8_t> reply, std::uint32_t seq) {
  auto end =
      walk_messages(reply, seq, [](const nlmsghdr*) -> Result<WalkStep> { return WalkStep::next; });
  return !end || *end != WalkEnd::exhausted;
}

Result<std::vector<DevlinkInfo>> parse_devlink_info_reply(std::span<const std::uint8_t> reply,
                                                          std::uint16_t family_id,
                                                          std::uint32_t seq) {
  std::vector<DevlinkInfo> out;
  auto r = for_each_reply(reply, family_id, seq, DEVLINK_CMD_INFO_GET,
                          [&](const nlmsghdr* nlh, const AttrTable& a) -> std::optional<Error> {
                            const auto& tb = a.tb;
                            if (tb[DEVLINK_ATTR_BUS_NAME] == nullptr)
                              return devlink_missing("BUS_NAME");
                            if (tb[DEVLINK_ATTR_DEV_NAME] == nullptr)
                              return devlink_missing("DEV_NAME");
                            DevlinkInfo info;
                            info.bus_name = attr_string(tb[DEVLINK_ATTR_BUS_NAME]);
                            info.dev_name = attr_string(tb[DEVLINK_ATTR_DEV_NAME]);
                            info.driver = attr_string(tb[DEVLINK_ATTR_INFO_DRIVER_NAME]);
                            info.serial_number = attr_string(tb[DEVLINK_ATTR_INFO_SERIAL_NUMBER]);
                            info.board_serial_number =
                                attr_string(tb[DEVLINK_ATTR_INFO_BOARD_SERIAL_NUMBER]);
                            const std::array<std::pair<std::uint16_t, VersionMap*>, 3> kinds{
                                {{DEVLINK_ATTR_INFO_VERSION_FIXED, &info.fixed},
                                 {DEVLINK_ATTR_INFO_VERSION_RUNNING, &info.running},
                                 {DEVLINK_ATTR_INFO_VERSION_STORED, &info.stored}}};
                            for (const auto& [type, into] : kinds) {
                              if (tb[type] == nullptr) continue;
                              if (auto e = read_versions(nlh, type, *into)) return e;
                            }
                            out.push_back(std::move(info));
                            return std::nullopt;
                          });
  if (!r) return r.error();
  return out;
}

Result<std::vector<DevlinkReporterEntry>> parse_devlink_health_reply(
    std::span<const std::uint8_t> reply, std::uint16_t family_id, std::uint32_t seq) {
  std::vector<DevlinkReporterEntry> out;
  auto r = for_each_reply(
      reply, family_id, seq, DEVLINK_CMD_HEALTH_REPORTER_GET,
      [&](const nlmsghdr*, const AttrTable& a) -> std::optional<Error> {
        const auto& tb = a.tb;
        if (tb[DEVLINK_ATTR_BUS_NAME] == nullptr) return devlink_missing("BUS_NAME");
        if (tb[DEVLINK_ATTR_DEV_NAME] == nullptr) return devlink_missing("DEV_NAME");
        if (tb[DEVLINK_ATTR_HEALTH_REPORTER] == nullptr) return devlink_missing("HEALTH_REPORTER");
        auto rep = parse_nested(tb[DEVLINK_ATTR_HEALTH_REPORTER], kDevlinkPolicy);
        if (!rep) return rep.error();
        const auto& rt = rep->tb;
        if (rt[DEVLINK_ATTR_HEALTH_REPORTER_NAME] == nullptr)
          return devlink_missing("HEALTH_REPORTER_NAME");
        DevlinkReporterEntry e;
        e.bus_name = attr_string(tb[DEVLINK_ATTR_BUS_NAME]);
        e.dev_name = attr_string(tb[DEVLINK_ATTR_DEV_NAME]);
        if (const nlattr* port = tb[DEVLINK_ATTR_PORT_INDEX]) e.port_index = mnl_attr_get_u32(port);
        DevlinkHealthReporter& h = e.reporter;
        h.name = attr_string(rt[DEVLINK_ATTR_HEALTH_REPORTER_NAME]);
        if (const nlattr* state = rt[DEVLINK_ATTR_HEALTH_REPORTER_STATE]) {
          // enum devlink_health_reporter_state (include/net/devlink.h, kernel-internal, not in
          // the uAPI): 0 healthy, 1 error. A newer state keeps its number.
          const std::uint8_t s = mnl_attr_get_u8(state);
          h.state = s == 0 ? "healthy" : s == 1 ? "error" : "state " + std::to_string(s);
        }
        const auto u64 = [&](int type) -> std::optional<std::uint64_t> {
          if (rt[static_cast<std::size_t>(type)] == nullptr) return std::nullopt;
          return mnl_attr_get_u64(rt[static_cast<std::size_t>(type)]);
        };
        const auto flag = [&](int type) -> std::optional<bool> {
          if (rt[static_cast<std::size_t>(type)] == nullptr) return std::nullopt;
          return mnl_attr_get_u8(rt[static_cast<std::size_t>(type)]) != 0;
        };
        h.error_count = u64(DEVLINK_ATTR_HEALTH_REPORTER_ERR_COUNT);
        h.recover_count = u64(DEVLINK_ATTR_HEALTH_REPORTER_RECOVER_COUNT);
        // Sent only once a dump exists (net/devlink/health.c devlink_nl_health_reporter_fill).
        h.last_dump_ts_ms = u64(DEVLINK_ATTR_HEALTH_REPORTER_DUMP_TS);
        // Sent only by reporters that can recover.
        h.grace_period_ms = u64(DEVLINK_ATTR_HEALTH_REPORTER_GRACEFUL_PERIOD);
        h.auto_recover = flag(DEVLINK_ATTR_HEALTH_REPORTER_AUTO_RECOVER);
        h.auto_dump = flag(DEVLINK_ATTR_HEALTH_REPORTER_AUTO_DUMP);
        out.push_back(std::move(e));
        return std::nullopt;
      });
  if (!r) return r.error();
  return out;
}

}  // namespace rdmatop
