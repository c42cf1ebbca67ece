#include "collector/source/link_stats_source.h"

#include <linux/netlink.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "collector/source/netlink_socket.h"

namespace rdmatop {
namespace {

class LiveLinkStatsSource final : public LinkStatsSource {
 public:
  // Any socket family carries SIOCGIFINDEX; AF_UNIX exists whatever the kernel's protocols.
  LiveLinkStatsSource()
      : nl_(NETLINK_ROUTE), ioctl_fd_(::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) {
    if (ioctl_fd_ < 0) socket_error_ = errno;
  }
  LiveLinkStatsSource(const LiveLinkStatsSource&) = delete;
  LiveLinkStatsSource& operator=(const LiveLinkStatsSource&) = delete;
  ~LiveLinkStatsSource() override {
    if (ioctl_fd_ >= 0) ::close(ioctl_fd_);
  }

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
    if (ioctl_fd_ < 0) return errno_error(socket_error_, "ioctl socket");
    if (ifname.size() >= IFNAMSIZ) return Error{EINVAL, "not a netdev name: " + ifname};
    // SIOCGIFINDEX on any socket reaches dev_ioctl (net/socket.c sock_do_ioctl): a lookup of the
    // name in the socket's namespace, without the socket and close if_nametoindex(3) makes.
    ifreq request{};
    std::memcpy(request.ifr_name, ifname.data(), ifname.size());
    if (::ioctl(ioctl_fd_, SIOCGIFINDEX, &request) != 0) {
      return errno_error(errno, "SIOCGIFINDEX " + ifname);
    }
    return static_cast<std::uint32_t>(request.ifr_ifindex);
  }

 private:
  NetlinkSocket nl_;
  int ioctl_fd_;
  int socket_error_ = 0;
  std::uint32_t seq_ = 0;
};

}  // namespace

std::unique_ptr<LinkStatsSource> make_live_link_stats_source() {
  return std::make_unique<LiveLinkStatsSource>();
}

}  // namespace rdmatop
