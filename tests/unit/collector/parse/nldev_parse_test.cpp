// RDMA netlink (nldev) requests and reply parsers, on messages built here with libmnl the way
// the kernel lays them out (see nldev_messages.h).
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <catch2/catch.hpp>

#include <cerrno>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "collector/parse/nldev_parse.h"
#include "tests/support/nldev_messages.h"

namespace rdmatop {
namespace {

using testing::Reply;
constexpr std::uint32_t kNldevSeq = 777;

/// The request as libmnl sees it: header fields and every attribute (type -> u32 payload).
struct Request {
  std::uint16_t type = 0;
  std::uint16_t flags = 0;
  std::uint32_t seq = 0;
  std::vector<std::pair<std::uint16_t, std::uint32_t>> u32_attrs;
};

Request decode(const std::vector<std::uint8_t>& bytes) {
  std::vector<std::uint64_t> aligned(bytes.size() / 8 + 1);
  std::memcpy(aligned.data(), bytes.data(), bytes.size());
  const auto* nlh = reinterpret_cast<const nlmsghdr*>(aligned.data());
  REQUIRE(nlh->nlmsg_len == bytes.size());
  Request r{nlh->nlmsg_type, nlh->nlmsg_flags, nlh->nlmsg_seq, {}};
  mnl_attr_parse(
      nlh, 0,
      [](const nlattr* a, void* data) {
        REQUIRE(mnl_attr_validate(a, MNL_TYPE_U32) == 0);
        static_cast<Request*>(data)->u32_attrs.emplace_back(mnl_attr_get_type(a),
                                                            mnl_attr_get_u32(a));
        return MNL_CB_OK;
      },
      &r);
  return r;
}

std::vector<std::uint8_t> stat_reply() {
  return Reply()
      .message(RDMA_NLDEV_CMD_STAT_GET, kNldevSeq,
               testing::hwcounters(
                   3, 1,
                   {{"sent_pkts", 120}, {"rcvd_pkts", 0xffffffffffULL}, {"retry_exceeded_err", 0}}))
      .ack(kNldevSeq)
      .bytes();
}

std::vector<std::uint8_t> dev_reply() {
  return Reply()
      .message(RDMA_NLDEV_CMD_GET, kNldevSeq, testing::device(3, "rxe0", 1, 0x505400fffe123456ULL))
      .message(RDMA_NLDEV_CMD_GET, kNldevSeq,
               [](nlmsghdr* nlh) {
                 testing::device(7, "mlx5_0", 2, 0xb8599f0300a1b2c4ULL)(nlh);
                 mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_FW_VERSION, "16.35.2000");
               })
      .done(kNldevSeq)
      .bytes();
}

std::vector<std::uint8_t> port_reply() {
  return Reply()
      .message(RDMA_NLDEV_CMD_PORT_GET, kNldevSeq,
               [](nlmsghdr* nlh) {
                 mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 7);
                 mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, "mlx5_0");
                 mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
                 testing::put_u64(nlh, RDMA_NLDEV_ATTR_CAP_FLAGS, 1);
                 mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_PORT_STATE, 4);
                 mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_PORT_PHYS_STATE, 5);
                 mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_NDEV_INDEX, 12);
                 mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_NDEV_NAME, "ens1f0np0");
               })
      .message(RDMA_NLDEV_CMD_PORT_GET, kNldevSeq,
               [](nlmsghdr* nlh) {
                 // The netdev is in another network namespace: no NDEV_* attributes.
                 mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 7);
                 mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 2);
                 mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_PORT_STATE, 1);
                 mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_PORT_PHYS_STATE, 3);
               })
      .done(kNldevSeq)
      .bytes();
}

std::vector<std::uint8_t> status_reply() {
  return Reply()
      .message(RDMA_NLDEV_CMD_STAT_GET_STATUS, kNldevSeq,
               testing::counter_status(
                   7, 1,
                   {{"out_of_buffer", 0, -1}, {"cc_rx_ce_pkts", 40, 1}, {"cc_rx_cnp_pkts", 41, 0}}))
      .ack(kNldevSeq)
      .bytes();
}

std::vector<std::uint8_t> res_reply() {
  return Reply()
      .message(RDMA_NLDEV_CMD_RES_GET, kNldevSeq,
               testing::resources(3, "rxe0", {{"pd", 1}, {"cq", 2}, {"qp", 3}, {"mr", 0}}))
      .message(RDMA_NLDEV_CMD_RES_GET, kNldevSeq, testing::resources(7, "mlx5_0", {{"qp", 4096}}))
      .done(kNldevSeq)
      .bytes();
}

std::vector<std::uint8_t> qp_mode_reply() {
  return Reply()
      .message(RDMA_NLDEV_CMD_STAT_GET, kNldevSeq,
               testing::qp_counter_mode(7, 1, RDMA_COUNTER_MODE_AUTO, RDMA_COUNTER_MASK_QP_TYPE))
      .ack(kNldevSeq)
      .bytes();
}

std::vector<std::uint8_t> bound_reply() {
  return Reply()
      .message(
          RDMA_NLDEV_CMD_STAT_GET, kNldevSeq,
          testing::bound_counters(7, "mlx5_0",
                                  {{1, 4, 1, 2, 4242, "", {0x1a2, 0x1a3}, {{"out_of_sequence", 9}}},
                                   {1, 5, 2, -1, 0, "", {0x1b0}, {{"out_of_sequence", 0}}}}))
      .done(kNldevSeq)
      .bytes();
}

/// Every parser as a function of the bytes that only says whether it succeeded.
struct NamedParser {
  const char* name;
  std::function<std::vector<std::uint8_t>()> good;
  std::function<Result<bool>(const std::vector<std::uint8_t>&)> parse;
};

template <class T>
Result<bool> ok_of(const Result<T>& r) {
  if (!r) return r.error();
  return true;
}

const std::vector<NamedParser>& parsers() {
  static const std::vector<NamedParser> all = {
      {"dev", dev_reply, [](const auto& b) { return ok_of(parse_dev_get_reply(b, kNldevSeq)); }},
      {"port", port_reply, [](const auto& b) { return ok_of(parse_port_get_reply(b, kNldevSeq)); }},
      {"stat", stat_reply, [](const auto& b) { return ok_of(parse_stat_get_reply(b, kNldevSeq)); }},
      {"status", status_reply,
       [](const auto& b) { return ok_of(parse_stat_get_status_reply(b, kNldevSeq)); }},
      {"res", res_reply, [](const auto& b) { return ok_of(parse_res_get_reply(b, kNldevSeq)); }},
      {"qp counter mode", qp_mode_reply,
       [](const auto& b) { return ok_of(parse_qp_counter_mode_reply(b, kNldevSeq)); }},
      {"bound counters", bound_reply,
       [](const auto& b) { return ok_of(parse_bound_counters_reply(b, kNldevSeq)); }},
  };
  return all;
}

}  // namespace

TEST_CASE("nldev requests carry the command, flags and port", "[nldev]") {
  const std::uint16_t dump = NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP;
  const std::uint16_t doit = NLM_F_REQUEST | NLM_F_ACK;
  struct Case {
    const char* name;
    std::vector<std::uint8_t> bytes;
    std::uint16_t type;
    std::uint16_t flags;
    std::vector<std::pair<std::uint16_t, std::uint32_t>> attrs;
  };
  const std::vector<Case> cases = {
      {"dev", build_dev_get_request(11), 5121, dump, {}},
      {"port", build_port_get_request(7, 11), 5125, dump, {{RDMA_NLDEV_ATTR_DEV_INDEX, 7}}},
      {"stat",
       build_stat_get_request(7, 2, 11),
       5137,
       doit,
       {{RDMA_NLDEV_ATTR_DEV_INDEX, 7}, {RDMA_NLDEV_ATTR_PORT_INDEX, 2}}},
      {"status",
       build_stat_get_status_request(7, 2, 11),
       5144,
       doit,
       {{RDMA_NLDEV_ATTR_DEV_INDEX, 7}, {RDMA_NLDEV_ATTR_PORT_INDEX, 2}}},
      {"res", build_res_get_request(11), 5129, dump, {}},
      {"qp counter mode",
       build_qp_counter_mode_request(7, 2, 11),
       5137,
       doit,
       {{RDMA_NLDEV_ATTR_DEV_INDEX, 7},
        {RDMA_NLDEV_ATTR_PORT_INDEX, 2},
        {RDMA_NLDEV_ATTR_STAT_MODE, RDMA_COUNTER_MODE_MANUAL},
        {RDMA_NLDEV_ATTR_STAT_RES, RDMA_NLDEV_ATTR_RES_QP}}},
      {"bound counters",
       build_bound_counters_request(7, 2, 11),
       5137,
       dump,
       {{RDMA_NLDEV_ATTR_DEV_INDEX, 7},
        {RDMA_NLDEV_ATTR_PORT_INDEX, 2},
        {RDMA_NLDEV_ATTR_STAT_RES, RDMA_NLDEV_ATTR_RES_QP}}},
      // iproute2's `rdma statistic qp bind link DEV/2 lqpn 4242`: STAT_SET (16) in its order,
      // no STAT_COUNTER_ID (the kernel allocates the counter).
      {"qp counter bind",
       build_qp_counter_bind_request(7, 2, 4242, 11),
       5136,
       doit,
       {{RDMA_NLDEV_ATTR_STAT_MODE, RDMA_COUNTER_MODE_MANUAL},
        {RDMA_NLDEV_ATTR_STAT_RES, RDMA_NLDEV_ATTR_RES_QP},
        {RDMA_NLDEV_ATTR_DEV_INDEX, 7},
        {RDMA_NLDEV_ATTR_PORT_INDEX, 2},
        {RDMA_NLDEV_ATTR_RES_LQPN, 4242}}},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    const Request r = decode(c.bytes);
    CHECK(r.type == c.type);
    CHECK(r.flags == c.flags);
    CHECK(r.seq == 11u);
    CHECK(r.u32_attrs == c.attrs);
  }
}

TEST_CASE("parse_dev_get_reply reads every device of the dump", "[nldev]") {
  auto r = parse_dev_get_reply(dev_reply(), kNldevSeq);
  REQUIRE(r.ok());
  REQUIRE(r->size() == 2);
  const NldevDevice& rxe = (*r)[0];
  CHECK(rxe.index == 3u);
  CHECK(rxe.name == "rxe0");
  CHECK(rxe.port_count == 1u);
  CHECK(rxe.fw_version.empty());
  CHECK(rxe.node_guid == 0x505400fffe123456ULL);
  CHECK(format_guid(*rxe.node_guid) == "5054:00ff:fe12:3456");
  CHECK(rxe.node_type == 1);
  CHECK(rxe.protocol == "roce");
  const NldevDevice& mlx = (*r)[1];
  CHECK(mlx.name == "mlx5_0");
  CHECK(mlx.port_count == 2u);
  CHECK(mlx.fw_version == "16.35.2000");
  CHECK(format_guid(*mlx.sys_image_guid) == "b859:9f03:00a1:b2c4");
}

TEST_CASE("parse_dev_get_reply of an empty dump is no devices", "[nldev]") {
  auto r = parse_dev_get_reply(Reply().done(kNldevSeq).bytes(), kNldevSeq);
  REQUIRE(r.ok());
  CHECK(r->empty());
}

TEST_CASE("parse_port_get_reply: netdev absent when in another namespace", "[nldev]") {
  auto r = parse_port_get_reply(port_reply(), kNldevSeq);
  REQUIRE(r.ok());
  REQUIRE(r->size() == 2);
  CHECK((*r)[0] == NldevPort{7, "mlx5_0", 1, 4, 5, 12, "ens1f0np0"});
  CHECK((*r)[1] == NldevPort{7, "", 2, 1, 3, std::nullopt, ""});
}

TEST_CASE("parse_stat_get_reply reads the STAT_HWCOUNTERS nest, PAD skipped", "[nldev]") {
  auto r = parse_stat_get_reply(stat_reply(), kNldevSeq);
  REQUIRE(r.ok());
  CHECK(*r ==
        CounterMap{{"rcvd_pkts", 0xffffffffffULL}, {"retry_exceeded_err", 0}, {"sent_pkts", 120}});
}

TEST_CASE("parse_stat_get_reply ignores unknown attributes", "[nldev]") {
  const auto bytes =
      Reply()
          .message(RDMA_NLDEV_CMD_STAT_GET, kNldevSeq,
                   [](nlmsghdr* nlh) {
                     // Ids past this parser's table (a newer kernel) and known-but-unused ones.
                     mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_MAX + 5, 1);
                     mnl_attr_put_strz(nlh, 200, "future");
                     mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_MODE, 0);
                     testing::hwcounters(3, 1, {{"sent_pkts", 9}})(nlh);
                     nlattr* table = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
                     nlattr* entry = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
                     mnl_attr_put_u32(nlh, 300, 5);
                     mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, "x");
                     testing::put_u64(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, 1);
                     mnl_attr_nest_end(nlh, entry);
                     mnl_attr_put_u32(nlh, 301, 5);  // a non-entry inside the table
                     mnl_attr_nest_end(nlh, table);
                   })
          .ack(kNldevSeq)
          .bytes();
  auto r = parse_stat_get_reply(bytes, kNldevSeq);
  // The later STAT_HWCOUNTERS wins, as in a policy table; the unknowns changed nothing.
  REQUIRE(r.ok());
  CHECK(*r == CounterMap{{"x", 1}});
}

TEST_CASE("parse_stat_get_status_reply: DYNAMIC only on optional counters", "[nldev]") {
  auto r = parse_stat_get_status_reply(status_reply(), kNldevSeq);
  REQUIRE(r.ok());
  REQUIRE(r->size() == 3);
  CHECK((*r)[0] == NldevCounterStatus{"out_of_buffer", 0, std::nullopt});
  CHECK((*r)[1] == NldevCounterStatus{"cc_rx_ce_pkts", 40, true});
  CHECK((*r)[2] == NldevCounterStatus{"cc_rx_cnp_pkts", 41, false});
}

TEST_CASE("parse_res_get_reply reads the summary of every device", "[nldev]") {
  auto r = parse_res_get_reply(res_reply(), kNldevSeq);
  REQUIRE(r.ok());
  REQUIRE(r->size() == 2);
  CHECK((*r)[0] == NldevResources{3, "rxe0", {{"cq", 2}, {"mr", 0}, {"pd", 1}, {"qp", 3}}});
  CHECK((*r)[1] == NldevResources{7, "mlx5_0", {{"qp", 4096}}});
}

TEST_CASE("nldev parsers turn kernel errors into their errno", "[nldev]") {
  struct Case {
    int error;
    const char* extack;
    std::string message;
  };
  const std::vector<Case> cases = {
      {-EOPNOTSUPP, nullptr, "Operation not supported"},
      {-EPERM, nullptr, "Operation not permitted"},
      {-ENODEV, "no such device index", "No such device (no such device index)"},
      {-EINVAL, nullptr, "Invalid argument"},
  };
  for (const auto& parser : parsers()) {
    for (const auto& c : cases) {
      INFO(parser.name << " errno " << -c.error);
      auto r = parser.parse(Reply().error(kNldevSeq, c.error, c.extack).bytes());
      REQUIRE_FALSE(r.ok());
      CHECK(r.error().code == -c.error);
      CHECK(r.error().message == c.message);
    }
  }
}

TEST_CASE("a dump that fails part-way reports the errno in NLMSG_DONE", "[nldev]") {
  const auto bytes = Reply()
                         .message(RDMA_NLDEV_CMD_GET, kNldevSeq, testing::device(3, "rxe0", 1, 1))
                         .done(kNldevSeq, -EMSGSIZE)
                         .bytes();
  auto r = parse_dev_get_reply(bytes, kNldevSeq);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == EMSGSIZE);
}

TEST_CASE("nldev parsers skip messages of other requests", "[nldev]") {
  const auto bytes = Reply()
                         .error(kNldevSeq - 1, -EBUSY)
                         .message(RDMA_NLDEV_CMD_STAT_GET, kNldevSeq - 1,
                                  testing::hwcounters(3, 1, {{"stale", 1}}))
                         .message(RDMA_NLDEV_CMD_STAT_GET, kNldevSeq,
                                  testing::hwcounters(3, 1, {{"sent_pkts", 5}}))
                         .ack(kNldevSeq)
                         .bytes();
  auto r = parse_stat_get_reply(bytes, kNldevSeq);
  REQUIRE(r.ok());
  CHECK(*r == CounterMap{{"sent_pkts", 5}});
}

TEST_CASE("nldev parsers reject malformed replies with EPROTO", "[nldev]") {
  using Fill = std::function<void(nlmsghdr*)>;
  const auto entry = [](const Fill& inner) -> Fill {
    return [inner](nlmsghdr* nlh) {
      mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 3);
      nlattr* table = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
      nlattr* e = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
      inner(nlh);
      mnl_attr_nest_end(nlh, e);
      mnl_attr_nest_end(nlh, table);
    };
  };
  struct Case {
    const char* name;
    Fill fill;
    std::string message_prefix;
  };
  const std::vector<Case> cases = {
      {"DEV_INDEX as u8", [](nlmsghdr* nlh) { mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 3); },
       "DEV_INDEX: invalid attribute"},
      {"STAT_HWCOUNTERS shorter than an attribute",
       [](nlmsghdr* nlh) { mnl_attr_put_u16(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS, 1); },
       "STAT_HWCOUNTERS: invalid attribute"},
      {"value as u32", entry([](nlmsghdr* nlh) {
         mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, "a");
         mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, 1);
       }),
       "STAT_HWCOUNTER_ENTRY_VALUE: invalid attribute"},
      {"name without NUL", entry([](nlmsghdr* nlh) {
         mnl_attr_put(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, 3, "abc");
         testing::put_u64(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, 1);
       }),
       "STAT_HWCOUNTER_ENTRY_NAME: invalid attribute"},
      {"entry without value", entry([](nlmsghdr* nlh) {
         mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, "a");
       }),
       "STAT_HWCOUNTER_ENTRY_VALUE missing"},
      {"entry without name", entry([](nlmsghdr* nlh) {
         testing::put_u64(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, 1);
       }),
       "STAT_HWCOUNTER_ENTRY_NAME missing"},
      {"no STAT_HWCOUNTERS",
       [](nlmsghdr* nlh) { mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 3); },
       "STAT_HWCOUNTERS missing"},
      {"duplicate counter", testing::hwcounters(3, 1, {{"a", 1}, {"a", 2}}),
       "duplicate hw counter a"},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    auto r = parse_stat_get_reply(
        Reply().message(RDMA_NLDEV_CMD_STAT_GET, kNldevSeq, c.fill).ack(kNldevSeq).bytes(),
        kNldevSeq);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == EPROTO);
    CHECK(r.error().message.rfind(c.message_prefix, 0) == 0);
  }

  SECTION("a device without DEV_NAME") {
    auto r = parse_dev_get_reply(
        Reply()
            .message(RDMA_NLDEV_CMD_GET, kNldevSeq,
                     [](nlmsghdr* nlh) { mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 1); })
            .done(kNldevSeq)
            .bytes(),
        kNldevSeq);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message == "DEV_NAME missing from reply");
  }
  SECTION("another command's message") {
    auto r = parse_stat_get_reply(
        Reply()
            .message(RDMA_NLDEV_CMD_GET, kNldevSeq, testing::hwcounters(3, 1, {{"a", 1}}))
            .ack(kNldevSeq)
            .bytes(),
        kNldevSeq);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message == "unexpected netlink message type 5121");
  }
  SECTION("two STAT_GET replies") {
    const auto fill = testing::hwcounters(3, 1, {{"a", 1}});
    auto r = parse_stat_get_reply(Reply()
                                      .message(RDMA_NLDEV_CMD_STAT_GET, kNldevSeq, fill)
                                      .message(RDMA_NLDEV_CMD_STAT_GET, kNldevSeq, fill)
                                      .ack(kNldevSeq)
                                      .bytes(),
                                  kNldevSeq);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == EPROTO);
  }
  SECTION("an ACK without the reply") {
    auto r = parse_stat_get_reply(Reply().ack(kNldevSeq).bytes(), kNldevSeq);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message == "no STAT_GET reply message");
  }
}

TEST_CASE("nldev parsers: every truncation is an error, never a crash", "[nldev]") {
  for (const auto& parser : parsers()) {
    const auto good = parser.good();
    REQUIRE(parser.parse(good).ok());
    REQUIRE(!nldev_reply_complete({}, kNldevSeq));
    for (std::size_t len = 0; len < good.size(); ++len) {
      INFO(parser.name << " truncated to " << len << " of " << good.size());
      const std::vector<std::uint8_t> cut(good.begin(), good.begin() + static_cast<long>(len));
      auto r = parser.parse(cut);
      REQUIRE_FALSE(r.ok());
      CHECK(r.error().code == EPROTO);
    }
  }
}

TEST_CASE("nldev parsers survive damaged lengths and random bytes", "[nldev]") {
  for (const auto& parser : parsers()) {
    const auto good = parser.good();
    INFO(parser.name);
    for (std::uint32_t len : {0x7fffffffU, 0x80000000U, 0xfffffff0U, 0xffffffffU, 3U}) {
      auto bad = good;
      std::memcpy(bad.data(), &len, sizeof(len));
      CHECK_FALSE(parser.parse(bad).ok());
    }
    // Flip bytes past the first header (attribute lengths and types included): any outcome
    // but a crash or an over-read (the sanitizer build checks that) is acceptable.
    std::mt19937 rng(12345);
    for (int i = 0; i < 2000; ++i) {
      auto bad = good;
      const std::size_t pos = NLMSG_HDRLEN + rng() % (bad.size() - NLMSG_HDRLEN);
      bad[pos] = static_cast<std::uint8_t>(rng());
      (void)parser.parse(bad);
    }
  }
}

}  // namespace rdmatop
