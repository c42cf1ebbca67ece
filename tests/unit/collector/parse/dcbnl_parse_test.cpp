// dcbnl DCB_CMD_IEEE_GET request and reply parser: on messages built here with libmnl as
// net/dcb/dcbnl.c dcbnl_ieee_fill lays them out, and on the recorded replies in
// tests/fixtures/netlink (see its README).
#include <libmnl/libmnl.h>
#include <linux/dcbnl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <catch2/catch.hpp>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "collector/parse/dcbnl_parse.h"
#include "tests/support/netlink_fixture.h"
#include "tests/support/nldev_messages.h"

namespace rdmatop {
namespace {

using testing::Reply;
constexpr std::uint32_t kDcbSeq = 4040;

void put_dcbmsg(nlmsghdr* nlh, std::uint8_t cmd = DCB_CMD_IEEE_GET) {
  auto* d = static_cast<dcbmsg*>(mnl_nlmsg_put_extra_header(nlh, sizeof(dcbmsg)));
  d->cmd = cmd;
}

/// A reply with only PFC (a driver without ieee_getets): PFC on priorities 3 and 4.
std::vector<std::uint8_t> pfc_only_reply(std::size_t pfc_len = sizeof(ieee_pfc)) {
  return Reply()
      .raw(RTM_GETDCB, kDcbSeq,
           [&](nlmsghdr* nlh) {
             put_dcbmsg(nlh);
             mnl_attr_put_strz(nlh, DCB_ATTR_IFNAME, "eth3");
             nlattr* ieee = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
             ieee_pfc pfc{};
             pfc.pfc_cap = 8;
             pfc.pfc_en = 0x18;
             pfc.delay = 32;
             for (std::size_t i = 0; i < 8; ++i) {
               pfc.requests[i] = 100 + i;
               pfc.indications[i] = 200 + i;
             }
             mnl_attr_put(nlh, DCB_ATTR_IEEE_PFC, pfc_len, &pfc);
             nlattr* app = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE_APP_TABLE);
             mnl_attr_nest_end(nlh, app);
             mnl_attr_nest_end(nlh, ieee);
           })
      .ack(kDcbSeq)
      .bytes();
}

TEST_CASE("build_dcb_ieee_get_request: RTM_GETDCB, dcbmsg IEEE_GET, the ifname", "[dcb]") {
  const auto bytes = build_dcb_ieee_get_request("ens1f0np0", 12);
  std::vector<std::uint64_t> aligned(bytes.size() / 8 + 1);
  std::memcpy(aligned.data(), bytes.data(), bytes.size());
  const auto* nlh = reinterpret_cast<const nlmsghdr*>(aligned.data());
  CHECK(nlh->nlmsg_len == bytes.size());
  CHECK(nlh->nlmsg_type == RTM_GETDCB);
  CHECK(nlh->nlmsg_flags == (NLM_F_REQUEST | NLM_F_ACK));
  CHECK(nlh->nlmsg_seq == 12);
  const auto* d = static_cast<const dcbmsg*>(mnl_nlmsg_get_payload(nlh));
  CHECK(d->cmd == DCB_CMD_IEEE_GET);
  CHECK(d->dcb_family == AF_UNSPEC);
  const auto* a = static_cast<const nlattr*>(mnl_nlmsg_get_payload_offset(nlh, sizeof(dcbmsg)));
  CHECK(mnl_attr_get_type(a) == DCB_ATTR_IFNAME);
  CHECK(std::string(mnl_attr_get_str(a)) == "ens1f0np0");
}

TEST_CASE("parse_dcb_ieee_reply: PFC only, no ETS, empty APP table", "[dcb]") {
  auto r = parse_dcb_ieee_reply(pfc_only_reply(), kDcbSeq);
  REQUIRE(r.ok());
  CHECK(r->pfc_enabled == 0x18);
  CHECK(r->pfc_cap == 8);
  CHECK(r->pfc_delay == 32);
  CHECK(r->pfc_requests == std::vector<std::uint64_t>{100, 101, 102, 103, 104, 105, 106, 107});
  CHECK(r->pfc_indications.at(7) == 207);
  CHECK(r->ets_prio_tc.empty());
  CHECK(r->app.empty());
  CHECK(r->trust.empty());
}

TEST_CASE("dcb fixture: mlx5 reply with ETS, PFC, APP table and trust order", "[dcb][fixture]") {
  const auto bytes = test::netlink_fixture("dcb_ieee_mlx5.bin");
  CHECK(dcb_reply_complete(bytes, 1));
  auto r = parse_dcb_ieee_reply(bytes, 1);
  REQUIRE(r.ok());
  CHECK(r->pfc_enabled == 0x08);
  CHECK(r->pfc_requests.at(3) == 1500);
  CHECK(r->pfc_indications.at(3) == 250);
  CHECK(r->ets_prio_tc == std::vector<std::uint8_t>{0, 0, 0, 3, 0, 0, 0, 0});
  CHECK(r->ets_tc_bw == std::vector<std::uint8_t>{50, 0, 0, 50, 0, 0, 0, 0});
  CHECK(r->ets_tc_tsa.at(0) == IEEE_8021QAZ_TSA_ETS);
  CHECK(r->app == std::vector<DcbAppEntry>{{5, 26, 3}, {5, 48, 6}, {255, 3, 3}});
  CHECK(r->trust == "dscp pcp");
}

TEST_CASE("dcb fixtures: kernel errors and a truncated reply", "[dcb][fixture]") {
  auto eop = parse_dcb_ieee_reply(test::netlink_fixture("dcb_eopnotsupp.bin"), 1);
  REQUIRE_FALSE(eop.ok());
  CHECK(eop.error().code == EOPNOTSUPP);
  auto enodev = parse_dcb_ieee_reply(test::netlink_fixture("dcb_enodev.bin"), 1);
  REQUIRE_FALSE(enodev.ok());
  CHECK(enodev.error().code == ENODEV);
  CHECK(enodev.error().message.find("no such device") != std::string::npos);
  auto cut = parse_dcb_ieee_reply(test::netlink_fixture("dcb_ieee_truncated.bin"), 1);
  REQUIRE_FALSE(cut.ok());
  CHECK(cut.error().code == EPROTO);
}

TEST_CASE("parse_dcb_ieee_reply turns kernel errors into their errno", "[dcb]") {
  for (const int e : {EOPNOTSUPP, EPERM, ENODEV, EINVAL}) {
    auto r = parse_dcb_ieee_reply(Reply().error(kDcbSeq, -e).bytes(), kDcbSeq);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == e);
  }
}

TEST_CASE("parse_dcb_ieee_reply rejects malformed replies with EPROTO", "[dcb]") {
  const auto good = pfc_only_reply();
  SECTION("every truncation") {
    for (std::size_t n = 0; n < good.size(); ++n) {
      auto r =
          parse_dcb_ieee_reply(std::vector<std::uint8_t>(good.begin(), good.begin() + n), kDcbSeq);
      REQUIRE_FALSE(r.ok());
      CHECK(r.error().code == EPROTO);
    }
  }
  SECTION("a PFC struct shorter than ieee_pfc") {
    auto r = parse_dcb_ieee_reply(pfc_only_reply(sizeof(ieee_pfc) - 8), kDcbSeq);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == EPROTO);
    CHECK(r.error().message.find("DCB_ATTR_IEEE_PFC") != std::string::npos);
  }
  SECTION("no DCB_ATTR_IEEE nest, another DCB command") {
    auto no_ieee = Reply()
                       .raw(RTM_GETDCB, kDcbSeq,
                            [](nlmsghdr* nlh) {
                              put_dcbmsg(nlh);
                              mnl_attr_put_strz(nlh, DCB_ATTR_IFNAME, "eth3");
                            })
                       .ack(kDcbSeq)
                       .bytes();
    CHECK(parse_dcb_ieee_reply(no_ieee, kDcbSeq).error().code == EPROTO);
    auto other =
        Reply()
            .raw(RTM_GETDCB, kDcbSeq, [](nlmsghdr* nlh) { put_dcbmsg(nlh, DCB_CMD_GSTATE); })
            .ack(kDcbSeq)
            .bytes();
    CHECK(parse_dcb_ieee_reply(other, kDcbSeq).error().code == EPROTO);
  }
  SECTION("an APP entry too short, an ACK alone") {
    auto short_app = Reply()
                         .raw(RTM_GETDCB, kDcbSeq,
                              [](nlmsghdr* nlh) {
                                put_dcbmsg(nlh);
                                nlattr* ieee = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
                                nlattr* app = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE_APP_TABLE);
                                mnl_attr_put_u16(nlh, DCB_ATTR_IEEE_APP, 5);
                                mnl_attr_nest_end(nlh, app);
                                mnl_attr_nest_end(nlh, ieee);
                              })
                         .ack(kDcbSeq)
                         .bytes();
    CHECK(parse_dcb_ieee_reply(short_app, kDcbSeq).error().code == EPROTO);
    CHECK(parse_dcb_ieee_reply(Reply().ack(kDcbSeq).bytes(), kDcbSeq).error().code == EPROTO);
  }
}

TEST_CASE("parse_dcb_ieee_reply ignores unknown attributes", "[dcb]") {
  auto bytes = Reply()
                   .raw(RTM_GETDCB, kDcbSeq,
                        [](nlmsghdr* nlh) {
                          put_dcbmsg(nlh);
                          mnl_attr_put_u32(nlh, 200, 1);
                          nlattr* ieee = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
                          mnl_attr_put_u32(nlh, 99, 7);
                          mnl_attr_nest_end(nlh, ieee);
                          mnl_attr_put_u8(nlh, DCB_ATTR_DCBX, 5);
                        })
                   .ack(kDcbSeq)
                   .bytes();
  auto r = parse_dcb_ieee_reply(bytes, kDcbSeq);
  REQUIRE(r.ok());
  CHECK(*r == DcbInfo{});
}

TEST_CASE("dcb_selector_name: the dcb tool's names", "[dcb]") {
  CHECK(dcb_selector_name(5) == "dscp");
  CHECK(dcb_selector_name(255) == "pcp");
  CHECK(dcb_selector_name(1) == "ethtype");
  CHECK(dcb_selector_name(77) == "77");
}

}  // namespace
}  // namespace rdmatop
