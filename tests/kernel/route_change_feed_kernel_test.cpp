// The rtnetlink change feed against the running kernel, in the private network namespace
// kernel_main.cpp entered: a veth made, addressed, flapped, renamed and removed with
// `ip`, each step's notifications read from the real socket; then the caching source on this
// namespace's sysfs keeping an announced value past the refresh period and forgetting it when
// an address is added.
#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <catch2/catch.hpp>
#include <chrono>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "collector/source/cached_file_source.h"
#include "collector/source/route_change_feed.h"
#include "tests/kernel/kernel_support.h"

namespace rdmatop {
namespace {

using kernel_test::must_run;
using kernel_test::run;

constexpr const char* kLink = "rtd0";
constexpr const char* kPeerNamespace = "rdmatop-peer";

/// A veth whose peer lives in another network namespace, so that the peer's state moves this
/// end's carrier (drivers/net/veth.c veth_open/veth_close) without a notification of its own
/// here; without IPv6 address generation (a link-local address would be announced after
/// duplicate address detection, seconds later, in the middle of another step). Both deleted on
/// every exit path.
class Link {
 public:
  Link() {
    must_run({"ip", "netns", "add", kPeerNamespace});
    must_run({"ip", "link", "add", kLink, "type", "veth", "peer", "name", "rtp0", "netns",
              kPeerNamespace});
    must_run({"ip", "link", "set", kLink, "addrgenmode", "none"});
  }
  Link(const Link&) = delete;
  Link& operator=(const Link&) = delete;
  ~Link() {
    (void)run({"ip", "link", "del", name});
    (void)run({"ip", "netns", "del", kPeerNamespace});
  }
  /// The peer up or down; returns once this end's carrier has followed, which the kernel
  /// announces from its link-watch work (net/core/link_watch.c), not before `ip` exits.
  static void peer(const std::string& state) {
    must_run({"ip", "-n", kPeerNamespace, "link", "set", "rtp0", state});
    const std::string wanted = state == "up" ? "state UP" : "NO-CARRIER";
    for (int i = 0; i < 500; ++i) {
      if (must_run({"ip", "-o", "link", "show", kLink}).out.find(wanted) != std::string::npos) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));  // past the notification
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    FAIL("the carrier of " << kLink << " did not follow its peer " << state);
  }
  std::string name = kLink;
};

TEST_CASE("the route feed announces address and identity changes, not carrier flaps",
          "[kernel][route_feed]") {
  // This namespace's notifications alone: the peer's own, from its namespace, would count.
  // Each step is checked right after `ip` exits: rtnetlink queues a command's notifications
  // before answering it (they are sent under the RTNL lock); the carrier steps wait for
  // link-watch (Link::peer).
  const auto feed = make_route_change_feed(Namespaces::own);
  REQUIRE(feed->unavailable().empty());
  CHECK_FALSE(feed->changed());
  Link link;
  CHECK(feed->changed());  // a new netdev (it may be an upper device of a RoCE netdev)
  CHECK_FALSE(feed->changed());
  must_run({"ip", "link", "set", kLink, "up"});
  CHECK(feed->changed());
  must_run({"ip", "addr", "add", "192.0.2.1/24", "dev", kLink});
  CHECK(feed->changed());
  Link::peer("up");  // carrier on
  CHECK_FALSE(feed->changed());
  Link::peer("down");  // carrier off
  CHECK_FALSE(feed->changed());
  must_run({"ip", "link", "set", kLink, "address", "02:00:00:00:00:99"});
  CHECK(feed->changed());
  must_run({"ip", "addr", "del", "192.0.2.1/24", "dev", kLink});
  CHECK(feed->changed());
  must_run({"ip", "link", "set", kLink, "down"});
  CHECK(feed->changed());
  must_run({"ip", "link", "set", kLink, "name", "rtd1"});
  link.name = "rtd1";
  CHECK(feed->changed());
  must_run({"ip", "link", "del", "rtd1"});
  CHECK(feed->changed());
  CHECK_FALSE(feed->changed());
}

TEST_CASE("an address added in another namespace with an id here is announced too",
          "[kernel][route_feed]") {
  // A macvlan on a RoCE netdev moved into a container's namespace adds its addresses to the
  // port's GID table (roce_gid_mgmt.c walks every namespace); the veth's peer stands for it.
  const auto all = make_route_change_feed();
  const auto own = make_route_change_feed(Namespaces::own);
  Link link;  // its peer made in the other namespace, which so gets an id here
  (void)all->changed();
  (void)own->changed();
  must_run({"ip", "-n", kPeerNamespace, "addr", "add", "198.51.100.9/24", "dev", "rtp0"});
  CHECK(all->changed());
  CHECK_FALSE(own->changed());
  CHECK_FALSE(all->changed());
}

/// CAP_NET_BROADCAST out of this thread's effective set while it lives (capget/capset(2) act
/// on the calling thread; the permitted set keeps it, so it comes back).
class WithoutNetBroadcast {
 public:
  WithoutNetBroadcast() {
    header_.version = _LINUX_CAPABILITY_VERSION_3;
    REQUIRE(::syscall(SYS_capget, &header_, data_.data()) == 0);
    saved_ = data_;
    data_[CAP_NET_BROADCAST / 32].effective &= ~(1U << (CAP_NET_BROADCAST % 32));
    REQUIRE(::syscall(SYS_capset, &header_, data_.data()) == 0);
  }
  WithoutNetBroadcast(const WithoutNetBroadcast&) = delete;
  WithoutNetBroadcast& operator=(const WithoutNetBroadcast&) = delete;
  ~WithoutNetBroadcast() { (void)::syscall(SYS_capset, &header_, saved_.data()); }

 private:
  __user_cap_header_struct header_{};
  std::array<__user_cap_data_struct, 2> data_{};
  std::array<__user_cap_data_struct, 2> saved_{};
};

TEST_CASE("without CAP_NET_BROADCAST the feed announces nothing and says why",
          "[kernel][route_feed]") {
  std::unique_ptr<ChangeFeed> feed;
  {
    const WithoutNetBroadcast without;
    feed = make_route_change_feed();
  }
  INFO(feed->unavailable());
  CHECK(feed->unavailable().find("NETLINK_LISTEN_ALL_NSID") != std::string::npos);
  Link link;
  CHECK_FALSE(feed->changed());  // a new netdev, not announced: GID tables keep 60 s
  // This namespace alone needs no capability.
  const WithoutNetBroadcast without;
  CHECK(make_route_change_feed(Namespaces::own)->unavailable().empty());
}

TEST_CASE("on sysfs an announced value outlives the refresh period until an address is added",
          "[kernel][route_feed]") {
  if (const auto& problem = kernel_test::private_sysfs_problem()) {
    std::cout << "SKIP (this case): /sys is not the private namespace's sysfs: " << *problem
              << "\n";
    return;
  }
  Link link;
  must_run({"ip", "link", "set", kLink, "up"});
  auto now = std::chrono::steady_clock::now();
  FileCacheOptions options;
  options.clock = [&now] { return now; };
  options.refresh_period = std::chrono::seconds(60);
  options.announced_refresh_period = std::chrono::minutes(10);
  options.announcements = make_route_change_feed();
  const auto sysfs = make_cached_file_source("/sys", options);
  const std::string dir = std::string("class/net/") + kLink;
  const std::vector<std::string> inputs = {dir};
  int makes = 0;
  struct Address final : DerivedValue {
    std::string text;
  };
  const auto pass = [&] {
    sysfs->begin_pass();
    const Derived derived = sysfs->derive_static(dir, inputs, Changes::announced, [&] {
      ++makes;
      auto value = std::make_shared<Address>();
      std::chrono::nanoseconds age{0};
      value->text = sysfs->read_static(dir + "/address", &age).value();
      return Derived{value, age};
    });
    REQUIRE(derived.value != nullptr);
    now += std::chrono::seconds(1);
    return static_cast<const Address&>(*derived.value).text;
  };
  (void)pass();  // the veth's own notifications are taken in here
  (void)pass();
  (void)pass();  // ... and settled
  const int settled = makes;
  now += std::chrono::seconds(120);  // twice the refresh period: sysfs sends no events
  (void)pass();
  CHECK(makes == settled);
  must_run({"ip", "link", "set", kLink, "address", "02:00:00:00:00:98"});
  CHECK(pass() == "02:00:00:00:00:98\n");
  CHECK(makes == settled + 1);
  CHECK(sysfs->stats().announcements_unavailable.empty());
}

}  // namespace
}  // namespace rdmatop
