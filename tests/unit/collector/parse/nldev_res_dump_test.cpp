// RDMA netlink per-object resource dumps (RES_QP/CQ/MR/PD_GET): the request, the owners of
// every object on messages built here with libmnl (nldev_messages.h), on replies written by
// tests/fixtures/tools/make_netlink_fixtures.py and on replies captured from a real rxe kernel
// (tests/fixtures/tools/capture_nldev_res.py; tests/fixtures/netlink/README.md), and bad input.
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "collector/parse/nldev_parse.h"
#include "tests/support/netlink_fixture.h"
#include "tests/support/nldev_messages.h"

namespace rdmatop {
namespace {

using testing::Reply;
using testing::ResObject;
constexpr std::uint32_t kResDumpSeq = 4242;

struct KindInfo {
  NldevResKind kind;
  std::uint16_t cmd, table, entry, id;
};

constexpr KindInfo kKinds[] = {
    {NldevResKind::qp, RDMA_NLDEV_CMD_RES_QP_GET, RDMA_NLDEV_ATTR_RES_QP,
     RDMA_NLDEV_ATTR_RES_QP_ENTRY, RDMA_NLDEV_ATTR_RES_LQPN},
    {NldevResKind::cq, RDMA_NLDEV_CMD_RES_CQ_GET, RDMA_NLDEV_ATTR_RES_CQ,
     RDMA_NLDEV_ATTR_RES_CQ_ENTRY, RDMA_NLDEV_ATTR_RES_CQN},
    {NldevResKind::mr, RDMA_NLDEV_CMD_RES_MR_GET, RDMA_NLDEV_ATTR_RES_MR,
     RDMA_NLDEV_ATTR_RES_MR_ENTRY, RDMA_NLDEV_ATTR_RES_MRN},
    {NldevResKind::pd, RDMA_NLDEV_CMD_RES_PD_GET, RDMA_NLDEV_ATTR_RES_PD,
     RDMA_NLDEV_ATTR_RES_PD_ENTRY, RDMA_NLDEV_ATTR_RES_PDN},
};

std::function<void(nlmsghdr*)> objects(const KindInfo& k, const std::vector<ResObject>& list) {
  return testing::res_objects(k.table, k.entry, k.id, 3, "rxe0", list);
}

/// Two messages (the kernel splits a dump when a datagram is full), a kernel user first.
std::vector<std::uint8_t> good_dump(const KindInfo& k) {
  return Reply()
      .message(k.cmd, kResDumpSeq, objects(k, {{1, 0, "ib_core"}, {17, 812, ""}}))
      .message(k.cmd, kResDumpSeq, objects(k, {{18, 812, ""}, {19, 1500, ""}}))
      .done(kResDumpSeq)
      .bytes();
}

}  // namespace

TEST_CASE("res dump requests: the kind's command, a dump, the device index", "[nldev][res]") {
  for (const KindInfo& k : kKinds) {
    INFO(to_string(k.kind));
    const auto bytes = build_res_dump_request(k.kind, 9, 31);
    std::vector<std::uint64_t> aligned(bytes.size() / 8 + 1);
    std::memcpy(aligned.data(), bytes.data(), bytes.size());
    const auto* nlh = reinterpret_cast<const nlmsghdr*>(aligned.data());
    REQUIRE(nlh->nlmsg_len == bytes.size());
    CHECK(nlh->nlmsg_type == RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, k.cmd));
    CHECK(nlh->nlmsg_flags == (NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP));
    CHECK(nlh->nlmsg_seq == 31u);
    const auto* attr = static_cast<const nlattr*>(mnl_nlmsg_get_payload(nlh));
    REQUIRE(mnl_attr_ok(attr, static_cast<int>(bytes.size() - NLMSG_HDRLEN)));
    CHECK(mnl_attr_get_type(attr) == RDMA_NLDEV_ATTR_DEV_INDEX);
    CHECK(mnl_attr_get_u32(attr) == 9u);
    CHECK(mnl_attr_get_payload_len(attr) == 4u);
    CHECK(bytes.size() == NLMSG_HDRLEN + 8);  // nothing else
  }
}

TEST_CASE("res dumps: one owner per object over every message", "[nldev][res]") {
  for (const KindInfo& k : kKinds) {
    INFO(to_string(k.kind));
    auto r = parse_res_dump_reply(k.kind, good_dump(k), kResDumpSeq);
    REQUIRE(r.ok());
    const std::vector<NldevResOwner> expected = {
        {3, "rxe0", std::nullopt, "ib_core"},
        {3, "rxe0", 812, ""},
        {3, "rxe0", 812, ""},
        {3, "rxe0", 1500, ""},
    };
    CHECK(*r == expected);
  }
}

TEST_CASE("res dumps: a device without objects answers NLMSG_DONE alone", "[nldev][res]") {
  auto r = parse_res_dump_reply(NldevResKind::qp, Reply().done(kResDumpSeq).bytes(), kResDumpSeq);
  REQUIRE(r.ok());
  CHECK(r->empty());
  // An empty table nest (not what the kernel sends, but well-formed) is no objects too.
  auto e = parse_res_dump_reply(
      NldevResKind::qp,
      Reply()
          .message(RDMA_NLDEV_CMD_RES_QP_GET, kResDumpSeq, testing::qp_objects(3, "rxe0", {}))
          .done(kResDumpSeq)
          .bytes(),
      kResDumpSeq);
  REQUIRE(e.ok());
  CHECK(e->empty());
}

TEST_CASE("res dumps: the reply of another kind is rejected", "[nldev][res]") {
  // A CQ message in answer to a QP request: the wrong command, not silently zero QPs.
  auto r = parse_res_dump_reply(NldevResKind::qp, good_dump(kKinds[1]), kResDumpSeq);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == EPROTO);
}

TEST_CASE("res dumps: unknown attributes are ignored at every level", "[nldev][res]") {
  const auto bytes =
      Reply()
          .message(RDMA_NLDEV_CMD_RES_QP_GET, kResDumpSeq,
                   [](nlmsghdr* nlh) {
                     mnl_attr_put_u32(nlh, 1000, 1);  // a message attribute from the future
                     mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 5);
                     nlattr* t = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_QP);
                     mnl_attr_put_u32(nlh, 999, 7);  // an unknown sibling of the entries
                     nlattr* e = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_QP_ENTRY);
                     mnl_attr_put_strz(nlh, 1001, "future");
                     mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_PID, 77);
                     nlattr* drv = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_DRIVER);
                     mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DRIVER_STRING, "sq_depth");
                     mnl_attr_nest_end(nlh, drv);
                     mnl_attr_nest_end(nlh, e);
                     mnl_attr_nest_end(nlh, t);
                   })
          .done(kResDumpSeq)
          .bytes();
  auto r = parse_res_dump_reply(NldevResKind::qp, bytes, kResDumpSeq);
  REQUIRE(r.ok());
  REQUIRE(r->size() == 1);
  CHECK((*r)[0] == NldevResOwner{5, "", 77, ""});
}

TEST_CASE("res dumps: malformed messages are EPROTO naming the problem", "[nldev][res]") {
  using Fill = std::function<void(nlmsghdr*)>;
  const auto entry = [](const Fill& inner) -> Fill {
    return [inner](nlmsghdr* nlh) {
      mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 3);
      nlattr* t = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_QP);
      nlattr* e = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_QP_ENTRY);
      inner(nlh);
      mnl_attr_nest_end(nlh, e);
      mnl_attr_nest_end(nlh, t);
    };
  };
  struct Case {
    const char* name;
    Fill fill;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"no DEV_INDEX",
       [](nlmsghdr* nlh) {
         nlattr* t = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_RES_QP);
         mnl_attr_nest_end(nlh, t);
       },
       "DEV_INDEX missing from reply"},
      {"no table", [](nlmsghdr* nlh) { mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 3); },
       "RES_QP missing from reply"},
      {"entry without owner",
       entry([](nlmsghdr* nlh) { mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_LQPN, 1); }),
       "RES_QP_ENTRY needs one of RES_PID, RES_KERN_NAME"},
      {"entry with both owners", entry([](nlmsghdr* nlh) {
         mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_RES_PID, 1);
         mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_RES_KERN_NAME, "ib_core");
       }),
       "RES_QP_ENTRY needs one of RES_PID, RES_KERN_NAME"},
      {"PID as u8", entry([](nlmsghdr* nlh) { mnl_attr_put_u8(nlh, RDMA_NLDEV_ATTR_RES_PID, 1); }),
       "RES_PID: invalid attribute"},
      {"kernel name not NUL-terminated",
       entry([](nlmsghdr* nlh) { mnl_attr_put(nlh, RDMA_NLDEV_ATTR_RES_KERN_NAME, 4, "abcd"); }),
       "RES_KERN_NAME: invalid attribute"},
      {"table as u32",
       [](nlmsghdr* nlh) {
         mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 3);
         mnl_attr_put_u16(nlh, RDMA_NLDEV_ATTR_RES_QP, 1);
       },
       "RES_QP: invalid attribute"},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    auto r = parse_res_dump_reply(
        NldevResKind::qp,
        Reply().message(RDMA_NLDEV_CMD_RES_QP_GET, kResDumpSeq, c.fill).done(kResDumpSeq).bytes(),
        kResDumpSeq);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == EPROTO);
    CHECK(r.error().message.find(c.message) != std::string::npos);
  }
}

TEST_CASE("res dumps: kernel errors keep their errno", "[nldev][res]") {
  // EINVAL: a kernel without the command (core/netlink.c is_nl_valid) or an unknown device
  // index (res_get_common_dumpit); EOPNOTSUPP/EPERM from LSMs or policy.
  for (const int e : {EINVAL, EOPNOTSUPP, EPERM, ENODEV}) {
    INFO(e);
    auto r =
        parse_res_dump_reply(NldevResKind::mr, Reply().error(kResDumpSeq, -e).bytes(), kResDumpSeq);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == e);
  }
  // A dump that fails part-way: the errno in NLMSG_DONE wins over the objects before it.
  auto part = parse_res_dump_reply(NldevResKind::qp,
                                   Reply()
                                       .message(RDMA_NLDEV_CMD_RES_QP_GET, kResDumpSeq,
                                                testing::qp_objects(3, "rxe0", {{1, 5, ""}}))
                                       .done(kResDumpSeq, -EMSGSIZE)
                                       .bytes(),
                                   kResDumpSeq);
  REQUIRE_FALSE(part.ok());
  CHECK(part.error().code == EMSGSIZE);
}

TEST_CASE("res dumps: every truncation is an error, never a crash", "[nldev][res]") {
  for (const KindInfo& k : kKinds) {
    const auto good = good_dump(k);
    for (std::size_t len = 0; len < good.size(); ++len) {
      INFO(to_string(k.kind) << " truncated to " << len << " of " << good.size());
      const std::vector<std::uint8_t> cut(good.begin(), good.begin() + static_cast<long>(len));
      auto r = parse_res_dump_reply(k.kind, cut, kResDumpSeq);
      REQUIRE_FALSE(r.ok());
      CHECK(r.error().code == EPROTO);
    }
  }
}

TEST_CASE("res dumps survive damaged lengths and random bytes", "[nldev][res]") {
  const auto good = good_dump(kKinds[0]);
  for (std::uint32_t len : {0x7fffffffU, 0xffffffffU, 3U}) {
    auto bad = good;
    std::memcpy(bad.data(), &len, sizeof(len));
    CHECK_FALSE(parse_res_dump_reply(NldevResKind::qp, bad, kResDumpSeq).ok());
  }
  std::mt19937 rng(4242);
  for (int i = 0; i < 3000; ++i) {
    auto bad = good;
    const std::size_t pos = NLMSG_HDRLEN + rng() % (bad.size() - NLMSG_HDRLEN);
    bad[pos] = static_cast<std::uint8_t>(rng());
    (void)parse_res_dump_reply(NldevResKind::qp, bad, kResDumpSeq);  // any outcome but a crash
  }
}

TEST_CASE("res dumps: the recorded QP dump of an rxe device", "[nldev][res]") {
  // Written by make_netlink_fixtures.py as nldev.c lays out an rxe QP dump: the kernel's GSI
  // QP (ib_core) and two RC QPs of PID 4321, split over two messages; sequence number 1.
  auto r = parse_res_dump_reply(NldevResKind::qp, test::netlink_fixture("nldev_res_qp_rxe.bin"), 1);
  REQUIRE(r.ok());
  const std::vector<NldevResOwner> expected = {
      {0, "rxe0", std::nullopt, "ib_core"},
      {0, "rxe0", 4321, ""},
      {0, "rxe0", 4321, ""},
  };
  CHECK(*r == expected);
  auto einval =
      parse_res_dump_reply(NldevResKind::pd, test::netlink_fixture("nldev_res_einval.bin"), 1);
  REQUIRE_FALSE(einval.ok());
  CHECK(einval.error().code == EINVAL);
}

TEST_CASE("res dumps: replies captured from a real rxe kernel", "[nldev][res]") {
  // Captured with tests/fixtures/tools/capture_nldev_res.py in the Soft-RoCE VM (Debian
  // 6.1.0-57 kernel) while an ibv_rc_pingpong server (PID 153) waited for its client: the
  // kernel's GSI QP, CQ and PD belong to ib_core, the server holds one QP, CQ, MR and PD.
  struct Case {
    NldevResKind kind;
    const char* file;
    std::vector<NldevResOwner> owners;  ///< sorted
  };
  const NldevResOwner server{0, "rxe0", 153, ""};
  const NldevResOwner kernel{0, "rxe0", std::nullopt, "ib_core"};
  const std::vector<Case> cases = {
      {NldevResKind::qp, "nldev_res_qp_rxe0_captured.bin", {kernel, server}},
      {NldevResKind::cq, "nldev_res_cq_rxe0_captured.bin", {kernel, server}},
      {NldevResKind::mr, "nldev_res_mr_rxe0_captured.bin", {server}},
      {NldevResKind::pd, "nldev_res_pd_rxe0_captured.bin", {kernel, server}},
  };
  const auto order = [](const NldevResOwner& a, const NldevResOwner& b) {
    return std::tie(a.pid, a.kern_name) < std::tie(b.pid, b.kern_name);
  };
  for (const auto& c : cases) {
    INFO(c.file);
    auto r = parse_res_dump_reply(c.kind, test::netlink_fixture(c.file), 1);
    REQUIRE(r.ok());
    auto owners = *r;
    std::sort(owners.begin(), owners.end(), order);
    CHECK(owners == c.owners);
    // Each capture answers its own command only.
    const NldevResKind other = c.kind == NldevResKind::qp ? NldevResKind::cq : NldevResKind::qp;
    CHECK_FALSE(parse_res_dump_reply(other, test::netlink_fixture(c.file), 1).ok());
  }
}

}  // namespace rdmatop
