// QP counters by RDMA netlink: the port's counter mode (`rdma statistic qp mode`) and the
// counters bound to QPs (`rdma statistic qp show`), on replies built with libmnl the way
// drivers/infiniband/core/nldev.c lays them out (nldev_messages.h): auto and manual counters,
// a port without any, unknown attributes, malformed entries and kernel errors; and replies
// captured from a real rxe kernel (tests/fixtures/netlink/README.md).
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <catch2/catch.hpp>

#include <cerrno>
#include <functional>
#include <string>
#include <vector>

#include "collector/parse/nldev_parse.h"
#include "tests/support/netlink_fixture.h"
#include "tests/support/nldev_messages.h"
#include "tests/support/temp_dir.h"

namespace rdmatop {
namespace {

using testing::CounterEntry;
using testing::Reply;
constexpr std::uint32_t kQpCounterSeq = 99;

std::vector<std::uint8_t> mode_reply(std::uint32_t mode, long mask) {
  return Reply()
      .message(RDMA_NLDEV_CMD_STAT_GET, kQpCounterSeq, testing::qp_counter_mode(7, 1, mode, mask))
      .ack(kQpCounterSeq)
      .bytes();
}

}  // namespace

TEST_CASE("qp counters: replies captured from a real rxe kernel", "[nldev][qp_counters]") {
  // Debian 6.1.0-57, rdma_rxe, sequence number 1; before and after
  // `rdma statistic qp set link rxe0/1 auto type on` (rxe has hw stats, so the mode is
  // accepted; it cannot allocate a counter, so nothing is ever bound).
  auto none =
      parse_qp_counter_mode_reply(test::netlink_fixture("nldev_stat_qp_mode_rxe0_captured.bin"), 1);
  REQUIRE(none.ok());
  CHECK(*none == NldevQpCounterMode{0, "rxe0", 1, {0, 0}});
  auto by_type = parse_qp_counter_mode_reply(
      test::netlink_fixture("nldev_stat_qp_mode_auto_rxe0_captured.bin"), 1);
  REQUIRE(by_type.ok());
  CHECK(*by_type == NldevQpCounterMode{0, "rxe0", 1, {1, 1}});
  auto bound = parse_bound_counters_reply(
      test::netlink_fixture("nldev_stat_qp_show_auto_rxe0_captured.bin"), 1);
  REQUIRE(bound.ok());
  CHECK(bound->empty());
  // Not a dump reply: the mode's answer ends with an ACK, not NLMSG_DONE, and vice versa.
  CHECK_FALSE(parse_qp_counter_mode_reply(
                  test::netlink_fixture("nldev_stat_qp_show_auto_rxe0_captured.bin"), 1)
                  .ok());
}

TEST_CASE("qp counter mode: none, auto with its criteria, manual", "[nldev][qp_counters]") {
  struct Case {
    std::uint32_t mode;
    long mask;
    QpCounterMode want;
  };
  const Case cases[] = {
      {RDMA_COUNTER_MODE_NONE, -1, {0, 0}},
      {RDMA_COUNTER_MODE_AUTO, RDMA_COUNTER_MASK_QP_TYPE, {1, 1}},
      {RDMA_COUNTER_MODE_AUTO, RDMA_COUNTER_MASK_QP_TYPE | RDMA_COUNTER_MASK_PID, {1, 3}},
      {RDMA_COUNTER_MODE_MANUAL, -1, {2, 0}},
  };
  for (const Case& c : cases) {
    INFO("mode " << c.mode << " mask " << c.mask);
    const auto r = parse_qp_counter_mode_reply(mode_reply(c.mode, c.mask), kQpCounterSeq);
    REQUIRE(r.ok());
    CHECK(r->dev_index == 7u);
    CHECK(r->dev_name == "mlx5_0");
    CHECK(r->port == 1u);
    CHECK(r->mode == c.want);
  }
}

TEST_CASE("qp counter mode: auto without its mask, or no mode at all, is EPROTO",
          "[nldev][qp_counters]") {
  auto r = parse_qp_counter_mode_reply(mode_reply(RDMA_COUNTER_MODE_AUTO, -1), kQpCounterSeq);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == EPROTO);
  CHECK(r.error().message == "STAT_AUTO_MODE_MASK missing from reply");
  const auto no_mode =
      Reply()
          .message(RDMA_NLDEV_CMD_STAT_GET, kQpCounterSeq, testing::hwcounters(7, 1, {}))
          .ack(kQpCounterSeq)
          .bytes();
  r = parse_qp_counter_mode_reply(no_mode, kQpCounterSeq);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == "STAT_MODE missing from reply");
}

TEST_CASE("qp counter mode: unknown attributes (newer kernels) are ignored",
          "[nldev][qp_counters]") {
  const auto bytes = Reply()
                         .message(RDMA_NLDEV_CMD_STAT_GET, kQpCounterSeq,
                                  [](nlmsghdr* nlh) {
                                    testing::qp_counter_mode(7, 1, RDMA_COUNTER_MODE_AUTO, 1)(nlh);
                                    mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_MAX + 5, 1);
                                    testing::put_u64(nlh, RDMA_NLDEV_ATTR_MAX + 6, 7);
                                  })
                         .ack(kQpCounterSeq)
                         .bytes();
  const auto r = parse_qp_counter_mode_reply(bytes, kQpCounterSeq);
  REQUIRE(r.ok());
  CHECK(r->mode == QpCounterMode{1, 1});
}

TEST_CASE("bound counters: every entry of every message, owner only when sent",
          "[nldev][qp_counters]") {
  const auto bytes =
      Reply()
          .message(RDMA_NLDEV_CMD_STAT_GET, kQpCounterSeq,
                   testing::bound_counters(
                       7, "mlx5_0",
                       {{1,
                         4,
                         RDMA_COUNTER_MODE_AUTO,
                         2,
                         4242,
                         "",
                         {0x1a2, 0x1a3},
                         {{"out_of_sequence", 9}, {"local_ack_timeout_err", 1ULL << 40}}},
                        {1, 5, RDMA_COUNTER_MODE_MANUAL, -1, 0, "", {}, {}}}))
          .message(RDMA_NLDEV_CMD_STAT_GET, kQpCounterSeq,
                   testing::bound_counters(7, "mlx5_0",
                                           {{1,
                                             6,
                                             RDMA_COUNTER_MODE_AUTO,
                                             2,
                                             0,
                                             "rdma_cm",
                                             {0x20},
                                             {{"rnr_nak_retry_err", 3}}}}))
          .done(kQpCounterSeq)
          .bytes();
  const auto r = parse_bound_counters_reply(bytes, kQpCounterSeq);
  REQUIRE(r.ok());
  REQUIRE(r->size() == 3);
  const NldevBoundCounter& a = (*r)[0];
  CHECK(a.dev_index == 7u);
  CHECK(a.dev_name == "mlx5_0");
  CHECK(a.port == 1u);
  CHECK(a.counter == BoundCounter{4,
                                  1,
                                  2,
                                  4242,
                                  "",
                                  "",
                                  {0x1a2, 0x1a3},
                                  {{"local_ack_timeout_err", 1ULL << 40}, {"out_of_sequence", 9}}});
  CHECK((*r)[1].counter == BoundCounter{5, 2, std::nullopt, std::nullopt, "", "", {}, {}});
  CHECK((*r)[2].counter ==
        BoundCounter{6, 1, 2, std::nullopt, "rdma_cm", "", {0x20}, {{"rnr_nak_retry_err", 3}}});
}

TEST_CASE("bound counters: a port without any answers NLMSG_DONE alone", "[nldev][qp_counters]") {
  const auto r = parse_bound_counters_reply(Reply().done(kQpCounterSeq).bytes(), kQpCounterSeq);
  REQUIRE(r.ok());
  CHECK(r->empty());
}

TEST_CASE("bound counters: unknown attributes are ignored at every level", "[nldev][qp_counters]") {
  const auto bytes =
      Reply()
          .message(RDMA_NLDEV_CMD_STAT_GET, kQpCounterSeq,
                   [](nlmsghdr* nlh) {
                     mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 7);
                     mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_MAX + 1, 1);
                     nlattr* table = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_COUNTER);
                     mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_MAX + 2, 2);  // in the table
                     nlattr* entry = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_COUNTER_ENTRY);
                     mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
                     mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_COUNTER_ID, 3);
                     mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_MODE, RDMA_COUNTER_MODE_MANUAL);
                     mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_MAX + 3, 1);  // in the entry
                     nlattr* qps = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_QP);
                     nlattr* qp = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_QP_ENTRY);
                     mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_LQPN, 77);
                     mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_MAX + 4, "x");  // in the QP
                     mnl_attr_nest_end(nlh, qp);
                     mnl_attr_nest_end(nlh, qps);
                     nlattr* hw = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
                     mnl_attr_nest_end(nlh, hw);
                     mnl_attr_nest_end(nlh, entry);
                     mnl_attr_nest_end(nlh, table);
                   })
          .done(kQpCounterSeq)
          .bytes();
  const auto r = parse_bound_counters_reply(bytes, kQpCounterSeq);
  REQUIRE(r.ok());
  REQUIRE(r->size() == 1);
  CHECK((*r)[0].counter.id == 3u);
  CHECK((*r)[0].counter.qpns == std::vector<std::uint32_t>{77});
}

TEST_CASE("bound counters: malformed entries are EPROTO naming the problem",
          "[nldev][qp_counters]") {
  struct Case {
    const char* name;
    std::function<void(nlmsghdr*)> fill;
    std::string message;
  };
  const auto entry_with = [](const std::function<void(nlmsghdr*)>& inside) {
    return [inside](nlmsghdr* nlh) {
      mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 7);
      nlattr* table = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_COUNTER);
      nlattr* entry = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_COUNTER_ENTRY);
      inside(nlh);
      mnl_attr_nest_end(nlh, entry);
      mnl_attr_nest_end(nlh, table);
    };
  };
  const auto empty_nest = [](nlmsghdr* nlh, std::uint16_t type) {
    mnl_attr_nest_end(nlh, mnl_attr_nest_start(nlh, type));
  };
  const std::vector<Case> cases = {
      {"no table", [](nlmsghdr* nlh) { mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 7); },
       "STAT_COUNTER missing from reply"},
      {"no port", entry_with([&](nlmsghdr* nlh) {
         mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_COUNTER_ID, 1);
       }),
       "PORT_INDEX missing from reply"},
      {"no id", entry_with([&](nlmsghdr* nlh) {
         mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
         mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_MODE, 2);
       }),
       "STAT_COUNTER_ID missing from reply"},
      {"no QP table", entry_with([&](nlmsghdr* nlh) {
         mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
         mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_COUNTER_ID, 1);
         mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_MODE, 2);
         empty_nest(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
       }),
       "RES_QP missing from reply"},
      {"no hw counters", entry_with([&](nlmsghdr* nlh) {
         mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
         mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_COUNTER_ID, 1);
         mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_MODE, 2);
         empty_nest(nlh, RDMA_NLDEV_ATTR_RES_QP);
       }),
       "STAT_HWCOUNTERS missing from reply"},
      {"QP without its number", entry_with([&](nlmsghdr* nlh) {
         mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
         mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_COUNTER_ID, 1);
         mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_MODE, 2);
         nlattr* qps = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_QP);
         empty_nest(nlh, RDMA_NLDEV_ATTR_RES_QP_ENTRY);
         mnl_attr_nest_end(nlh, qps);
         empty_nest(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
       }),
       "RES_LQPN missing from reply"},
      {"two owners", entry_with([&](nlmsghdr* nlh) {
         mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
         mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_COUNTER_ID, 1);
         mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_MODE, 1);
         mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_PID, 10);
         mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_RES_KERN_NAME, "ib_core");
         empty_nest(nlh, RDMA_NLDEV_ATTR_RES_QP);
         empty_nest(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
       }),
       "STAT_COUNTER_ENTRY has both RES_PID and RES_KERN_NAME"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const auto bytes =
        Reply().message(RDMA_NLDEV_CMD_STAT_GET, kQpCounterSeq, c.fill).done(kQpCounterSeq).bytes();
    const auto r = parse_bound_counters_reply(bytes, kQpCounterSeq);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == EPROTO);
    CHECK(r.error().message == c.message);
  }
  // A known attribute of the wrong type: RES_TYPE is a u8, here a string.
  const auto wrong_type =
      Reply()
          .message(RDMA_NLDEV_CMD_STAT_GET, kQpCounterSeq, entry_with([&](nlmsghdr* nlh) {
                     mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
                     mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_COUNTER_ID, 1);
                     mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_MODE, 1);
                     mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_RES_TYPE, "rc-long");
                   }))
          .done(kQpCounterSeq)
          .bytes();
  const auto r = parse_bound_counters_reply(wrong_type, kQpCounterSeq);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == EPROTO);
  CHECK(r.error().message.find("RES_TYPE") != std::string::npos);
}

TEST_CASE("qp counters: kernel errors keep their errno and text", "[nldev][qp_counters]") {
  for (const int err : {EOPNOTSUPP, EINVAL, ENOENT, EPERM}) {
    INFO(err);
    const auto bytes = Reply().error(kQpCounterSeq, -err, "not here").bytes();
    const auto mode = parse_qp_counter_mode_reply(bytes, kQpCounterSeq);
    REQUIRE_FALSE(mode.ok());
    CHECK(mode.error().code == err);
    CHECK(mode.error().message.find("not here") != std::string::npos);
    const auto dump = parse_bound_counters_reply(bytes, kQpCounterSeq);
    REQUIRE_FALSE(dump.ok());
    CHECK(dump.error().code == err);
  }
}

}  // namespace rdmatop
