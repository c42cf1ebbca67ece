#include "collector/source/devlink_source.h"

#include <linux/devlink.h>
#include <linux/netlink.h>

#include <cerrno>
#include <optional>
#include <string>

#include "collector/parse/ethtool_netlink_parse.h"
#include "collector/source/netlink_socket.h"

namespace rdmatop {
namespace {

class LiveDevlinkSource final : public DevlinkSource {
 public:
  LiveDevlinkSource() : nl_(NETLINK_GENERIC) {}

  Result<std::vector<DevlinkInfo>> info() override {
    return dump<std::vector<DevlinkInfo>>("DEVLINK_CMD_INFO_GET", build_devlink_info_request,
                                          parse_devlink_info_reply);
  }
  Result<std::vector<DevlinkReporterEntry>> health() override {
    return dump<std::vector<DevlinkReporterEntry>>("DEVLINK_CMD_HEALTH_REPORTER_GET",
                                                   build_devlink_health_request,
                                                   parse_devlink_health_reply);
  }

 private:
  Result<std::uint16_t> family_id() {
    if (family_) return *family_;
    const std::uint32_t seq = ++seq_;
    auto reply = nl_.exchange(build_genl_family_request(DEVLINK_GENL_NAME, seq),
                              [&](std::span<const std::uint8_t> r) {
                                auto id = parse_genl_family_reply(r, seq);
                                return id.ok() || id.error().code != ENOMSG;
                              });
    auto id = reply ? parse_genl_family_reply(*reply, seq) : Result<std::uint16_t>(reply.error());
    // ENOENT: no "devlink" family (CONFIG_NET_DEVLINK=n); it will not appear while we run, but
    // asking again costs one message per tick, so no caching of the failure.
    if (!id)
      return Error{id.error().code, "genl family " DEVLINK_GENL_NAME ": " + id.error().message};
    family_ = *id;
    return *id;
  }

  template <class T>
  Result<T> dump(const char* what, std::vector<std::uint8_t> (*build)(std::uint16_t, std::uint32_t),
                 Result<T> (*parse)(std::span<const std::uint8_t>, std::uint16_t, std::uint32_t)) {
    auto family = family_id();
    if (!family) return family.error();
    const std::uint32_t seq = ++seq_;
    auto reply = nl_.exchange(build(*family, seq), [&](std::span<const std::uint8_t> r) {
      return devlink_reply_complete(r, seq);
    });
    Result<T> r = reply ? parse(*reply, *family, seq) : Result<T>(reply.error());
    if (!r) return Error{r.error().code, std::string(what) + ": " + r.error().message};
    return r;
  }

  NetlinkSocket nl_;
  std::optional<std::uint16_t> family_;
  std::uint32_t seq_ = 0;
};

}  // namespace

std::unique_ptr<DevlinkSource> make_live_devlink_source() {
  return std::make_unique<LiveDevlinkSource>();
}

}  // namespace rdmatop
