#include "collector/source/link_stats_source.h"

#include <linux/netlink.h>
#include <linux/sockios.h>
#include <net/if.h>

#include "collector/source/netdev_ioctl_socket.h"
#include "collector/source/netlink_socket.h"

namespace rdmatop {
namespace {

class LiveLinkStatsSource final : public LinkStatsSource {
 public:
  LiveLinkStatsSource() : nl_(NETLINK_ROUTE) {}

  std::vector<Result<LinkStats>> stats(std::span<const std::uint32_t> ifindexes) override {
    const auto fail = [&](const Error& e) {
      return std::vector<Result<LinkStats>>(ifindexes.size(),
                                            Error{e.code, "RTM_GETSTATS: " + e.message});
    };
    if (ifindexes.empty()) return {};
    if (nl_.unavailable()) return fail(*nl_.unavailable());
    const std::uint32_t first = seq_ + 1;
    seq_ += static_cast<std::uint32_t>(ifindexes.size());
    auto reply = nl_.exchange(build_link_stats_requests(ifindexes, first),
                              [&](std::span<const std::uint8_t> r) {
                                return link_stats_replies_complete(r, first, ifindexes.size());
                              });
    if (!reply) return fail(reply.error());
    auto rows = parse_link_stats_replies(*reply, ifindexes, first);
    for (auto& row : rows) {
      if (!row) row = Error{row.error().code, "RTM_GETSTATS: " + row.error().message};
    }
    return rows;
  }

  Result<std::uint32_t> ifindex(const std::string& ifname) override {
    // SIOCGIFINDEX reaches dev_ioctl (net/socket.c sock_do_ioctl): a lookup of the name in the
    // socket's namespace, without the socket and close if_nametoindex(3) makes.
    ifreq request{};
    if (const int err = ioctl_.call(ifname, SIOCGIFINDEX, request); err != 0) {
      return errno_error(err, "SIOCGIFINDEX " + ifname);
    }
    return static_cast<std::uint32_t>(request.ifr_ifindex);
  }

 private:
  NetlinkSocket nl_;
  NetdevIoctlSocket ioctl_;
  std::uint32_t seq_ = 0;
};

}  // namespace

std::unique_ptr<LinkStatsSource> make_live_link_stats_source() {
  return std::make_unique<LiveLinkStatsSource>();
}

}  // namespace rdmatop
