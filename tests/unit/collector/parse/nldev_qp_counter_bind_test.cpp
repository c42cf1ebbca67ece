// The QP counter bind (`rdma statistic qp bind`, RDMA_NLDEV_CMD_STAT_SET): the reply the kernel
// sends on success (nldev.c nldev_stat_set_doit + nldev_stat_set_mode_doit: the device handle,
// the port, the new counter and the QP), built with libmnl; refusals keep their errno; missing
// attributes, other commands and truncations are errors, never a crash.
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <catch2/catch.hpp>

#include <cerrno>
#include <cstdint>
#include <vector>

#include "collector/parse/nldev_parse.h"
#include "tests/support/nldev_messages.h"

namespace rdmatop {
namespace {

using testing::Reply;
constexpr std::uint32_t kBindSeq = 41;

/// Which of the four required attributes the reply carries, and one the parser must skip.
struct Fill {
  bool dev = true, port = true, counter = true, qpn = true, unknown = false;
};

std::vector<std::uint8_t> bind_reply(const Fill& f, std::uint16_t cmd = RDMA_NLDEV_CMD_STAT_SET) {
  return Reply()
      .message(cmd, kBindSeq,
               [&](nlmsghdr* nlh) {
                 if (f.dev) mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 3);
                 mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, "mlx5_0");
                 if (f.port) mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
                 if (f.unknown)
                   mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_MAX + 4, 77);  // a newer kernel's
                 if (f.counter) mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_COUNTER_ID, 12);
                 if (f.qpn) mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_LQPN, 4242);
               })
      .ack(kBindSeq)
      .bytes();
}

}  // namespace

TEST_CASE("qp counter bind: the kernel's reply names the new counter", "[nldev][qp_counters]") {
  for (const bool unknown : {false, true}) {
    INFO("unknown attribute " << unknown);
    Fill f;
    f.unknown = unknown;
    const auto r = parse_qp_counter_bind_reply(bind_reply(f), kBindSeq);
    REQUIRE(r.ok());
    CHECK(*r == NldevQpCounterBinding{3, "mlx5_0", 1, 12, 4242});
  }
}

TEST_CASE("qp counter bind: a reply without a required attribute is EPROTO naming it",
          "[nldev][qp_counters]") {
  struct Case {
    const char* missing;
    Fill fill;
  };
  const Case cases[] = {
      {"DEV_INDEX", {false, true, true, true, false}},
      {"PORT_INDEX", {true, false, true, true, false}},
      {"STAT_COUNTER_ID", {true, true, false, true, false}},
      {"RES_LQPN", {true, true, true, false, false}},
  };
  for (const Case& c : cases) {
    INFO(c.missing);
    const auto r = parse_qp_counter_bind_reply(bind_reply(c.fill), kBindSeq);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == EPROTO);
    CHECK(r.error().message.find(c.missing) != std::string::npos);
  }
}

TEST_CASE("qp counter bind: refusals keep the kernel's errno and text", "[nldev][qp_counters]") {
  // EPERM: no CAP_NET_ADMIN; ENOMEM: no per-QP counters in the driver (rxe); EINVAL: auto mode;
  // ENOENT: no such QP; EOPNOTSUPP: no hw stats.
  for (const int err : {EPERM, ENOMEM, EINVAL, ENOENT, EOPNOTSUPP}) {
    INFO(err);
    const auto r =
        parse_qp_counter_bind_reply(Reply().error(kBindSeq, -err, "why").bytes(), kBindSeq);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == err);
    CHECK(r.error().message.find("why") != std::string::npos);
  }
}

TEST_CASE("qp counter bind: other commands, no message, truncations are errors",
          "[nldev][qp_counters]") {
  CHECK_FALSE(parse_qp_counter_bind_reply(bind_reply({}, RDMA_NLDEV_CMD_STAT_GET), kBindSeq).ok());
  CHECK_FALSE(parse_qp_counter_bind_reply(Reply().ack(kBindSeq).bytes(), kBindSeq).ok());
  CHECK_FALSE(parse_qp_counter_bind_reply({}, kBindSeq).ok());
  const auto whole = bind_reply({});
  for (std::size_t n = 0; n < whole.size(); ++n) {
    INFO("first " << n << " bytes");
    const std::vector<std::uint8_t> cut(whole.begin(), whole.begin() + static_cast<long>(n));
    CHECK_FALSE(parse_qp_counter_bind_reply(cut, kBindSeq).ok());
  }
  // Two answers to one bind cannot both be right.
  auto twice = Reply();
  for (int i = 0; i < 2; ++i) {
    twice.message(RDMA_NLDEV_CMD_STAT_SET, kBindSeq, [](nlmsghdr* nlh) {
      mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 3);
      mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
      mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_COUNTER_ID, 12);
      mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_LQPN, 4242);
    });
  }
  CHECK_FALSE(parse_qp_counter_bind_reply(twice.ack(kBindSeq).bytes(), kBindSeq).ok());
}

}  // namespace rdmatop
