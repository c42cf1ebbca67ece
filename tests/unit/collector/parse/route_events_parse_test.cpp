// Which rtnetlink notifications may change a RoCE GID table: on the notifications of a netdev's
// life captured from Linux 6.18 (tests/fixtures/netlink/README.md says how), and on messages
// built here with libmnl as net/core/rtnetlink.c rtnl_fill_ifinfo and net/ipv4/devinet.c
// inet_fill_ifaddr lay them out (tests/kernel/route_change_feed_kernel_test.cpp reads a real
// socket).
#include <libmnl/libmnl.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <catch2/catch.hpp>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "collector/parse/route_events_parse.h"
#include "tests/support/netlink_fixture.h"
#include "tests/support/nldev_messages.h"

namespace rdmatop {
namespace {

using testing::Reply;
/// kLowerUp of linux/if.h, which cannot be included next to <net/if.h>.
constexpr unsigned kLowerUp = 1U << 16U;

struct Link {
  std::int32_t ifindex = 3;
  std::string name = "ens1f0np0";
  std::string mac = std::string("\x02\x00\x00\x00\x00\x01", 6);
  std::uint32_t master = 0;
  unsigned flags = IFF_UP | IFF_RUNNING | kLowerUp;
};

void put_link(Reply& reply, const Link& link, std::uint16_t type = RTM_NEWLINK) {
  reply.raw(type, 0, [&](nlmsghdr* nlh) {
    auto* ifi = static_cast<ifinfomsg*>(mnl_nlmsg_put_extra_header(nlh, sizeof(ifinfomsg)));
    ifi->ifi_index = link.ifindex;
    ifi->ifi_flags = link.flags;
    mnl_attr_put_strz(nlh, IFLA_IFNAME, link.name.c_str());
    mnl_attr_put(nlh, IFLA_ADDRESS, link.mac.size(), link.mac.data());
    mnl_attr_put_u32(nlh, IFLA_MTU, 9000);
    if (link.master != 0) mnl_attr_put_u32(nlh, IFLA_MASTER, link.master);
  });
}

std::vector<std::uint8_t> link_message(const Link& link, std::uint16_t type = RTM_NEWLINK) {
  Reply reply;
  put_link(reply, link, type);
  return reply.bytes();
}

bool changes(const std::vector<std::uint8_t>& bytes, KnownLinks& known) {
  auto result = gid_events_in(bytes, known);
  REQUIRE(result.ok());
  return *result;
}

TEST_CASE("a captured netdev life: every step counts but the carrier's", "[route_events]") {
  // Expected from the kernel's code before the capture was read: roce_gid_mgmt.c changes GIDs
  // on a netdev made, set up or down, given another MAC address, renamed (the ndevs/ text) or
  // removed, and on every address; link-watch's carrier notifications carry none of that.
  const std::vector<std::pair<std::string, bool>> steps = {
      {"01_create", true},      {"02_up", true},           {"03_addr_add", true},
      {"04_carrier_on", false}, {"05_carrier_off", false}, {"06_mac", true},
      {"07_addr6_add", true},   {"08_addr_del", true},     {"09_down", true},
      {"10_rename", true},      {"11_delete", true}};
  KnownLinks known;
  for (const auto& [step, expected] : steps) {
    INFO(step);
    const auto bytes = test::netlink_fixture("rtnl_events_" + step + "_captured.bin");
    CHECK(changes(bytes, known) == expected);
  }
  CHECK(known.empty());  // the one netdev was removed at the end
}

TEST_CASE("a netdev's link messages count when what GIDs depend on changes", "[route_events]") {
  KnownLinks known;
  Link link;
  CHECK(changes(link_message(link), known));  // new to us: it may be a new upper device
  CHECK_FALSE(changes(link_message(link), known));

  SECTION("a carrier flap does not") {
    link.flags = IFF_UP;  // carrier lost: IFF_RUNNING and kLowerUp gone
    CHECK_FALSE(changes(link_message(link), known));
    link.flags = IFF_UP | IFF_RUNNING | kLowerUp;
    CHECK_FALSE(changes(link_message(link), known));
  }
  SECTION("set down by its administrator (NETDEV_DOWN, then NETDEV_UP)") {
    link.flags = 0;
    CHECK(changes(link_message(link), known));
    CHECK_FALSE(changes(link_message(link), known));
  }
  SECTION("a new MAC address (NETDEV_CHANGEADDR: the default GIDs follow it)") {
    link.mac = std::string("\x02\x00\x00\x00\x00\x02", 6);
    CHECK(changes(link_message(link), known));
  }
  SECTION("enslaved to a bond (NETDEV_CHANGEUPPER)") {
    link.master = 9;
    CHECK(changes(link_message(link), known));
  }
  SECTION("renamed (gid_attrs/ndevs/N shows the name)") {
    link.name = "rdma0";
    CHECK(changes(link_message(link), known));
  }
  SECTION("removed, and made again with the same identity") {
    CHECK(changes(link_message(link, RTM_DELLINK), known));
    CHECK(known.empty());
    CHECK(changes(link_message(link), known));
  }
  SECTION("another netdev is another identity") {
    Link other = link;
    other.ifindex = 4;
    CHECK(changes(link_message(other), known));
    CHECK(known.size() == 2);
  }
}

TEST_CASE("an address added or removed counts, other messages do not", "[route_events]") {
  KnownLinks known;
  const auto address = [](std::uint16_t type, unsigned char family) {
    Reply reply;
    reply.raw(type, 0, [&](nlmsghdr* nlh) {
      auto* ifa = static_cast<ifaddrmsg*>(mnl_nlmsg_put_extra_header(nlh, sizeof(ifaddrmsg)));
      ifa->ifa_family = family;
      ifa->ifa_index = 3;
      const std::uint32_t v4 = 0x010264c6;  // 198.100.2.1
      mnl_attr_put(nlh, IFA_ADDRESS, sizeof v4, &v4);
    });
    return reply.bytes();
  };
  CHECK(changes(address(RTM_NEWADDR, AF_INET), known));
  CHECK(changes(address(RTM_DELADDR, AF_INET), known));
  CHECK(changes(address(RTM_NEWADDR, AF_INET6), known));
  Reply route;
  route.raw(RTM_NEWROUTE, 0, [](nlmsghdr* nlh) { mnl_nlmsg_put_extra_header(nlh, sizeof(rtmsg)); });
  CHECK_FALSE(changes(route.bytes(), known));
  CHECK(known.empty());
}

TEST_CASE("several notifications in one datagram are each taken in", "[route_events]") {
  KnownLinks known;
  Link a;
  Link b;
  b.ifindex = 4;
  b.name = "ens1f1np1";
  Reply reply;
  put_link(reply, a);
  put_link(reply, b);
  CHECK(changes(reply.bytes(), known));
  CHECK(known.size() == 2);
  Reply flaps;
  a.flags = IFF_UP;
  b.flags = IFF_UP;
  put_link(flaps, a);
  put_link(flaps, b);
  CHECK_FALSE(changes(flaps.bytes(), known));
}

TEST_CASE("damaged notifications are errors, which the feed counts as a change", "[route_events]") {
  KnownLinks known;
  Link link;
  auto bytes = link_message(link);
  SECTION("cut inside a message") {
    bytes.erase(bytes.end() - 3, bytes.end());
    const auto result = gid_events_in(bytes, known);
    REQUIRE_FALSE(result.ok());
    CHECK(result.error().code == EPROTO);
  }
  SECTION("a link message without its whole ifinfomsg") {
    Reply reply;
    reply.raw(RTM_NEWLINK, 0, [](nlmsghdr* nlh) { mnl_nlmsg_put_extra_header(nlh, 4); });
    const auto result = gid_events_in(reply.bytes(), known);
    REQUIRE_FALSE(result.ok());
    CHECK(result.error().message.find("ifinfomsg") != std::string::npos);
  }
  SECTION("an attribute of the wrong type") {
    Reply reply;
    reply.raw(RTM_NEWLINK, 0, [](nlmsghdr* nlh) {
      auto* ifi = static_cast<ifinfomsg*>(mnl_nlmsg_put_extra_header(nlh, sizeof(ifinfomsg)));
      ifi->ifi_index = 3;
      const std::uint8_t one = 1;
      mnl_attr_put(nlh, IFLA_MASTER, sizeof one, &one);  // a u32 of one byte
    });
    CHECK_FALSE(gid_events_in(reply.bytes(), known).ok());
  }
  CHECK(known.empty());
}

}  // namespace
}  // namespace rdmatop
