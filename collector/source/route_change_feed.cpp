#include "collector/source/route_change_feed.h"

#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <cerrno>

#include "collector/parse/route_events_parse.h"
#include "collector/source/netlink_socket.h"

namespace rdmatop {
namespace {

class RouteChangeFeed final : public ChangeFeed {
 public:
  explicit RouteChangeFeed(Namespaces namespaces)
      : socket_(NETLINK_ROUTE, RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR) {
    // Without the other namespaces (EPERM without CAP_NET_BROADCAST) an address of an upper
    // device in a container's namespace would go unannounced: the feed then announces nothing,
    // and GID tables keep the plain refresh period. Links of several namespaces share
    // KnownLinks by ifindex: a clash can make a notification count that would not have.
    if (namespaces == Namespaces::all_with_id && !socket_.unavailable()) {
      if (auto listening = socket_.listen_all_namespaces(); !listening) {
        problem_ = listening.error().message + " (other network namespaces' addresses)";
      }
    }
  }

  bool changed() override {
    if (socket_.unavailable() || !problem_.empty()) return false;
    bool changed = false;
    // Bounded, so that a flood of notifications cannot hold a pass: what is left waits for the
    // next one, and counts as a change now.
    for (int i = 0; i < kMaxDatagramsPerPass; ++i) {
      auto datagram = socket_.receive_queued();
      if (!datagram) {
        // Notifications lost (ENOBUFS: the queue overran; the next receive goes on with what
        // came after) or cut: what changed cannot be told. Any other error ends this pass.
        changed = true;
        if (datagram.error().code == ENOBUFS || datagram.error().code == ENOSPC) continue;
        return true;
      }
      if (!*datagram) return changed;
      const auto relevant = gid_events_in(**datagram, known_);
      changed = changed || !relevant || *relevant;
    }
    return true;
  }

  std::string unavailable() const override {
    const auto& why = socket_.unavailable();
    return why ? why->message : problem_;
  }

 private:
  static constexpr int kMaxDatagramsPerPass = 4096;
  NetlinkSocket socket_;
  std::string problem_;  ///< why the other namespaces are not listened to
  KnownLinks known_;
};

}  // namespace

std::unique_ptr<ChangeFeed> make_route_change_feed(Namespaces namespaces) {
  return std::make_unique<RouteChangeFeed>(namespaces);
}

}  // namespace rdmatop
