// RTM_GETSTATS (IFLA_STATS_LINK_64) requests and their answers: on an answer captured from
// Linux 6.18 (tests/fixtures/netlink/README.md says how) and on messages built here with libmnl
// as net/core/rtnetlink.c rtnl_stats_get and rtnl_fill_statsinfo lay them out.
#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <catch2/catch.hpp>

#include <cerrno>
#include <cstring>
#include <vector>

#include "collector/parse/link_stats_parse.h"
#include "tests/support/netlink_fixture.h"
#include "tests/support/nldev_messages.h"

namespace rdmatop {
namespace {

using testing::Reply;
constexpr std::uint32_t kStatsSeq = 7;

std::size_t stats_field(std::string_view name) {
  for (std::size_t i = 0; i < kLinkStatsFields.size(); ++i) {
    if (kLinkStatsFields[i] == name) return i;
  }
  FAIL("no field " << name);
  return 0;
}

/// The RTM_NEWSTATS answer to request `seq` for `ifindex`: IFLA_STATS_LINK_64 holds `fields`
/// u64s, the i-th being 1000 * ifindex + i (`bytes` overrides the payload length; -2: no
/// IFLA_STATS_LINK_64 at all).
void put_stats(Reply& reply, std::uint32_t seq, std::uint32_t ifindex, std::size_t fields,
               long bytes = -1) {
  reply.raw(RTM_NEWSTATS, seq, [&](nlmsghdr* nlh) {
    auto* ifsm = static_cast<if_stats_msg*>(mnl_nlmsg_put_extra_header(nlh, sizeof(if_stats_msg)));
    ifsm->ifindex = ifindex;
    ifsm->filter_mask = IFLA_STATS_FILTER_BIT(IFLA_STATS_LINK_64);
    if (bytes == -2) return;
    std::vector<std::uint64_t> values(fields);
    for (std::size_t i = 0; i < fields; ++i) values[i] = 1000 * ifindex + i;
    mnl_attr_put(
        nlh, IFLA_STATS_LINK_64,
        bytes < 0 ? values.size() * sizeof(std::uint64_t) : static_cast<std::size_t>(bytes),
        values.data());
  });
}

TEST_CASE("link stats: one RTM_GETSTATS per ifindex, IFLA_STATS_LINK_64 only, numbered in turn",
          "[link_stats]") {
  const std::vector<std::uint32_t> ifindexes{5, 2};
  const auto bytes = build_link_stats_requests(ifindexes, kStatsSeq);
  constexpr std::size_t kOne = NLMSG_HDRLEN + sizeof(if_stats_msg);
  REQUIRE(bytes.size() == 2 * kOne);
  for (std::size_t i = 0; i < 2; ++i) {
    nlmsghdr nlh{};
    std::memcpy(&nlh, bytes.data() + i * kOne, sizeof nlh);
    CHECK(nlh.nlmsg_len == kOne);
    CHECK(nlh.nlmsg_type == RTM_GETSTATS);
    CHECK(nlh.nlmsg_flags == NLM_F_REQUEST);  // one answer each, no ACK
    CHECK(nlh.nlmsg_seq == kStatsSeq + i);
    if_stats_msg ifsm{};
    std::memcpy(&ifsm, bytes.data() + i * kOne + NLMSG_HDRLEN, sizeof ifsm);
    CHECK(ifsm.ifindex == ifindexes[i]);
    CHECK(ifsm.filter_mask == IFLA_STATS_FILTER_BIT(IFLA_STATS_LINK_64));
  }
  CHECK(build_link_stats_requests({}, kStatsSeq).empty());
}

TEST_CASE("link stats: an answer captured from Linux 6.18 (a veth pair, lo, a missing ifindex)",
          "[link_stats]") {
  // Asked for ifindexes 3 (rta0), 1 (lo), 9 (none) and 2 (rtb0) with sequence numbers 1 to 4,
  // after three UDP datagrams to 127.0.0.1:9 (each answered by an ICMP port unreachable) and
  // the veth pair's own IPv6 start-up traffic; sysfs printed the same values before and after
  // (README.md). The kernel sent 25 fields (rx_otherhost_dropped, 5.19+): the 24 of sysfs are
  // kept.
  const auto reply = test::netlink_fixture("rtm_getstats_link64_captured.bin");
  const std::vector<std::uint32_t> asked{3, 1, 9, 2};
  CHECK(link_stats_replies_complete(reply, 1, asked.size()));
  CHECK_FALSE(link_stats_replies_complete(reply, 1, asked.size() + 1));
  const auto rows = parse_link_stats_replies(reply, asked, 1);
  REQUIRE(rows.size() == 4);
  REQUIRE(rows[0].ok());
  REQUIRE(rows[1].ok());
  REQUIRE(rows[3].ok());
  const LinkStats& rta0 = *rows[0];
  const LinkStats& lo = *rows[1];
  const LinkStats& rtb0 = *rows[3];
  CHECK(rta0.ifindex == 3);
  CHECK(lo.ifindex == 1);
  CHECK(rtb0.ifindex == 2);
  for (const LinkStats* row : {&rta0, &lo, &rtb0}) CHECK(row->count == kLinkStatsFields.size());
  CHECK(lo.values[stats_field("rx_packets")] == 6);
  CHECK(lo.values[stats_field("tx_packets")] == 6);
  CHECK(lo.values[stats_field("rx_bytes")] == 852);
  CHECK(lo.values[stats_field("tx_bytes")] == 852);
  CHECK(lo.values[stats_field("rx_dropped")] == 0);
  CHECK(rta0.values[stats_field("rx_packets")] == 5);
  CHECK(rta0.values[stats_field("rx_bytes")] == 426);
  CHECK(rta0.values[stats_field("tx_packets")] == 3);
  CHECK(rta0.values[stats_field("tx_bytes")] == 266);
  CHECK(rtb0.values[stats_field("rx_packets")] == 3);
  CHECK(rtb0.values[stats_field("tx_bytes")] == 426);
  REQUIRE_FALSE(rows[2].ok());
  CHECK(rows[2].error().code == ENODEV);
}

TEST_CASE("link stats: a shorter struct gives fewer values", "[link_stats]") {
  Reply reply;
  put_stats(reply, kStatsSeq, 9, 24);
  put_stats(reply, kStatsSeq + 1, 4, 23);  // shorter than any kernel sends: no rx_nohandler
  const std::vector<std::uint32_t> asked{9, 4};
  const auto rows = parse_link_stats_replies(reply.bytes(), asked, kStatsSeq);
  REQUIRE(rows.size() == 2);
  REQUIRE(rows[0].ok());
  REQUIRE(rows[1].ok());
  CHECK(rows[0]->count == 24);
  CHECK(rows[0]->values[stats_field("rx_nohandler")] == 9023);
  CHECK(rows[1]->count == 23);
  CHECK(rows[1]->values[22] == 4022);
  CHECK(rows[1]->values[23] == 0);
}

TEST_CASE("link stats: answers of other requests are not taken", "[link_stats]") {
  Reply reply;
  put_stats(reply, kStatsSeq - 1, 3, 24);  // a late answer to an earlier tick's request
  put_stats(reply, kStatsSeq, 3, 24);
  put_stats(reply, kStatsSeq, 3, 23);  // a second answer to the same request: ignored
  const std::vector<std::uint32_t> asked{3};
  const auto rows = parse_link_stats_replies(reply.bytes(), asked, kStatsSeq);
  REQUIRE(rows.size() == 1);
  REQUIRE(rows[0].ok());
  CHECK(rows[0]->count == 24);
}

TEST_CASE("link stats: what does not answer a request well is EPROTO, alone", "[link_stats]") {
  const std::vector<std::uint32_t> asked{2, 5};
  Reply reply;
  std::string why;
  SECTION("a payload that is not whole u64 fields") {
    put_stats(reply, kStatsSeq, 2, 24, 20);
    why = "not whole u64 fields";
  }
  SECTION("no IFLA_STATS_LINK_64") {
    put_stats(reply, kStatsSeq, 2, 24, -2);
    why = "no IFLA_STATS_LINK_64";
  }
  SECTION("the row of another netdev") {
    put_stats(reply, kStatsSeq, 3, 24);
    why = "answer for ifindex 3, asked 2";
  }
  SECTION("a message of another type") {
    reply.raw(RTM_NEWLINK, kStatsSeq, [](nlmsghdr* nlh) { mnl_nlmsg_put_extra_header(nlh, 16); });
    why = "unexpected netlink message type";
  }
  SECTION("a header shorter than if_stats_msg") {
    reply.raw(RTM_NEWSTATS, kStatsSeq, [](nlmsghdr* nlh) { mnl_nlmsg_put_extra_header(nlh, 4); });
    why = "truncated if_stats_msg header";
  }
  SECTION("an acknowledgement") {
    reply.ack(kStatsSeq);
    why = "an acknowledgement without statistics";
  }
  put_stats(reply, kStatsSeq + 1, 5, 24);
  const auto rows = parse_link_stats_replies(reply.bytes(), asked, kStatsSeq);
  REQUIRE(rows.size() == 2);
  REQUIRE_FALSE(rows[0].ok());
  CHECK(rows[0].error().code == EPROTO);
  CHECK_THAT(rows[0].error().message, Catch::Contains(why));
  REQUIRE(rows[1].ok());  // the next request's answer stands
  CHECK(rows[1]->values[0] == 5000);
}

TEST_CASE("link stats: cut answers and kernel errors", "[link_stats]") {
  const std::vector<std::uint32_t> asked{3, 1, 9, 2};
  SECTION("the captured answer cut in the middle of its last message") {
    const auto whole = test::netlink_fixture("rtm_getstats_link64_captured.bin");
    REQUIRE(whole.size() > 40);
    const std::vector<std::uint8_t> reply(whole.begin(), whole.end() - 40);
    CHECK(link_stats_replies_complete(reply, 1, asked.size()));  // malformed: nothing to wait for
    const auto rows = parse_link_stats_replies(reply, asked, 1);
    REQUIRE(rows.size() == 4);
    CHECK(rows[0].ok());  // what came whole before the cut stands
    CHECK(rows[1].ok());
    CHECK(rows[2].error().code == ENODEV);
    REQUIRE_FALSE(rows[3].ok());
    CHECK(rows[3].error().code == EPROTO);
  }
  SECTION("answers missing at the end") {
    Reply reply;
    put_stats(reply, 1, 3, 24);
    CHECK_FALSE(link_stats_replies_complete(reply.bytes(), 1, asked.size()));
    const auto rows = parse_link_stats_replies(reply.bytes(), asked, 1);
    CHECK(rows[0].ok());
    REQUIRE_FALSE(rows[3].ok());
    CHECK(rows[3].error().code == EPROTO);
    CHECK_THAT(rows[3].error().message, Catch::Contains("no answer"));
  }
  SECTION("a kernel without RTM_GETSTATS") {
    Reply reply;
    for (std::uint32_t seq = 1; seq <= asked.size(); ++seq) reply.error(seq, -EOPNOTSUPP);
    REQUIRE(link_stats_replies_complete(reply.bytes(), 1, asked.size()));
    for (const auto& row : parse_link_stats_replies(reply.bytes(), asked, 1)) {
      REQUIRE_FALSE(row.ok());
      CHECK(row.error().code == EOPNOTSUPP);
    }
  }
  SECTION("sequence numbers that wrap") {
    Reply reply;
    put_stats(reply, UINT32_MAX, 3, 24);
    put_stats(reply, 0, 1, 24);
    const std::vector<std::uint32_t> two{3, 1};
    CHECK(link_stats_replies_complete(reply.bytes(), UINT32_MAX, 2));
    const auto rows = parse_link_stats_replies(reply.bytes(), two, UINT32_MAX);
    REQUIRE(rows[0].ok());
    REQUIRE(rows[1].ok());
    CHECK(rows[1]->ifindex == 1);
  }
}

}  // namespace
}  // namespace rdmatop
