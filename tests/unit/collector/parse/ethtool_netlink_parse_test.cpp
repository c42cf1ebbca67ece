// The ethtool generic-netlink requests and reply parsers, on messages built here with libmnl
// the way the kernel lays them out (net/ethtool/pause.c pause_fill_reply, netlink.c).
#include <libmnl/libmnl.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <catch2/catch.hpp>

#include <cerrno>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "collector/parse/ethtool_netlink_parse.h"

namespace rdmatop {
namespace {

constexpr std::uint16_t kEthtoolFamily = 27;
constexpr std::uint32_t kSeq = 4242;

/// Builds a datagram of one or more netlink messages.
class Datagram {
 public:
  /// Appends a message; `fill` adds attributes. Returns *this for chaining.
  Datagram& genl(std::uint16_t type, std::uint8_t cmd, std::uint32_t seq,
                 const std::function<void(nlmsghdr*)>& fill) {
    nlmsghdr* nlh = start(type, seq);
    auto* g = static_cast<genlmsghdr*>(mnl_nlmsg_put_extra_header(nlh, sizeof(genlmsghdr)));
    g->cmd = cmd;
    g->version = 1;
    fill(nlh);
    return finish(nlh);
  }
  /// NLMSG_ERROR with `error` (negative errno, or 0 for an ACK) and an optional extack text.
  Datagram& error(int error, std::uint32_t seq, const char* extack = nullptr, bool capped = true) {
    nlmsghdr* nlh = start(NLMSG_ERROR, seq);
    auto* err = static_cast<nlmsgerr*>(mnl_nlmsg_put_extra_header(nlh, sizeof(nlmsgerr)));
    err->error = error;
    err->msg.nlmsg_len = NLMSG_HDRLEN + GENL_HDRLEN + 8;  // the request being answered
    err->msg.nlmsg_seq = seq;
    if (!capped) {
      // The echoed request payload: genl header + one 8-byte attribute.
      mnl_nlmsg_put_extra_header(nlh, GENL_HDRLEN + 8);
    } else {
      nlh->nlmsg_flags |= NLM_F_CAPPED;
    }
    if (extack != nullptr) {
      nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
      mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, extack);
      mnl_attr_put_u32(nlh, NLMSGERR_ATTR_OFFS, 20);
    }
    return finish(nlh);
  }
  std::vector<std::uint8_t> bytes() const { return bytes_; }

 private:
  nlmsghdr* start(std::uint16_t type, std::uint32_t seq) {
    scratch_.assign(scratch_.size(), 0);
    nlmsghdr* nlh = mnl_nlmsg_put_header(scratch_.data());
    nlh->nlmsg_type = type;
    nlh->nlmsg_seq = seq;
    nlh->nlmsg_pid = 1234;
    return nlh;
  }
  Datagram& finish(nlmsghdr* nlh) {
    const auto* p = reinterpret_cast<const std::uint8_t*>(nlh);
    bytes_.insert(bytes_.end(), p, p + NLMSG_ALIGN(nlh->nlmsg_len));
    return *this;
  }
  std::vector<std::uint64_t> scratch_ = std::vector<std::uint64_t>(1024);
  std::vector<std::uint8_t> bytes_;
};

void put_pause_header(nlmsghdr* nlh) {
  nlattr* h = mnl_attr_nest_start(nlh, ETHTOOL_A_PAUSE_HEADER);
  mnl_attr_put_u32(nlh, ETHTOOL_A_HEADER_DEV_INDEX, 3);
  mnl_attr_put_strz(nlh, ETHTOOL_A_HEADER_DEV_NAME, "ens1f0np0");
  mnl_attr_nest_end(nlh, h);
}

/// A reply as the kernel sends it for `ethtool -I -a`: header, settings, stats with PAD.
void put_full_pause(nlmsghdr* nlh) {
  put_pause_header(nlh);
  mnl_attr_put_u8(nlh, ETHTOOL_A_PAUSE_AUTONEG, 0);
  mnl_attr_put_u8(nlh, ETHTOOL_A_PAUSE_RX, 1);
  mnl_attr_put_u8(nlh, ETHTOOL_A_PAUSE_TX, 1);
  nlattr* s = mnl_attr_nest_start(nlh, ETHTOOL_A_PAUSE_STATS);
  mnl_attr_put(nlh, ETHTOOL_A_PAUSE_STAT_PAD, 0, nullptr);
  mnl_attr_put_u64(nlh, ETHTOOL_A_PAUSE_STAT_TX_FRAMES, 0x1122334455667788ULL);
  mnl_attr_put(nlh, ETHTOOL_A_PAUSE_STAT_PAD, 0, nullptr);
  mnl_attr_put_u64(nlh, ETHTOOL_A_PAUSE_STAT_RX_FRAMES, 7);
  mnl_attr_nest_end(nlh, s);
}

std::vector<std::uint8_t> full_pause_reply() {
  return Datagram().genl(kEthtoolFamily, ETHTOOL_MSG_PAUSE_GET_REPLY, kSeq, put_full_pause).bytes();
}

Result<PauseInfo> parse(const std::vector<std::uint8_t>& d) {
  return parse_pause_reply(d, kEthtoolFamily, kSeq);
}

int collect_cb(const nlattr* attr, void* data) {
  static_cast<std::vector<const nlattr*>*>(data)->push_back(attr);
  return MNL_CB_OK;
}

/// Every attribute of a message (after `offset` payload bytes) or of a nest, in order.
std::vector<const nlattr*> attrs_of(const nlmsghdr* nlh, unsigned offset) {
  std::vector<const nlattr*> out;
  mnl_attr_parse(nlh, offset, collect_cb, &out);
  return out;
}
std::vector<const nlattr*> attrs_of(const nlattr* nest) {
  std::vector<const nlattr*> out;
  mnl_attr_parse_nested(nest, collect_cb, &out);
  return out;
}

}  // namespace

TEST_CASE("build_pause_get_request asks for pause with statistics", "[ethtool_netlink]") {
  const auto req = build_pause_get_request(kEthtoolFamily, "ens1f0np0", 77);
  std::vector<std::uint64_t> aligned(req.size() / 8 + 1);
  std::memcpy(aligned.data(), req.data(), req.size());
  const auto* nlh = reinterpret_cast<const nlmsghdr*>(aligned.data());

  REQUIRE(mnl_nlmsg_ok(nlh, static_cast<int>(req.size())));
  CHECK(nlh->nlmsg_len == req.size());
  CHECK(nlh->nlmsg_type == kEthtoolFamily);
  CHECK(nlh->nlmsg_flags == NLM_F_REQUEST);
  CHECK(nlh->nlmsg_seq == 77u);
  const auto* g = static_cast<const genlmsghdr*>(mnl_nlmsg_get_payload(nlh));
  CHECK(g->cmd == ETHTOOL_MSG_PAUSE_GET);
  CHECK(g->version == ETHTOOL_GENL_VERSION);

  std::string dev;
  std::uint32_t flags = 0;
  int header_count = 0;
  for (const nlattr* a : attrs_of(nlh, GENL_HDRLEN)) {
    REQUIRE(mnl_attr_get_type(a) == ETHTOOL_A_PAUSE_HEADER);
    ++header_count;
    for (const nlattr* inner : attrs_of(a)) {
      if (mnl_attr_get_type(inner) == ETHTOOL_A_HEADER_DEV_NAME) {
        REQUIRE(mnl_attr_validate(inner, MNL_TYPE_NUL_STRING) == 0);
        dev = mnl_attr_get_str(inner);
      } else if (mnl_attr_get_type(inner) == ETHTOOL_A_HEADER_FLAGS) {
        REQUIRE(mnl_attr_validate(inner, MNL_TYPE_U32) == 0);
        flags = mnl_attr_get_u32(inner);
      }
    }
  }
  CHECK(header_count == 1);
  CHECK(dev == "ens1f0np0");
  CHECK(flags == 4u);  // ETHTOOL_FLAG_STATS = 1 << 2 (uapi ethtool_netlink.h)
}

TEST_CASE("build_genl_family_request resolves a family by name", "[ethtool_netlink]") {
  const auto req = build_genl_family_request("ethtool", 5);
  std::vector<std::uint64_t> aligned(req.size() / 8 + 1);
  std::memcpy(aligned.data(), req.data(), req.size());
  const auto* nlh = reinterpret_cast<const nlmsghdr*>(aligned.data());
  REQUIRE(mnl_nlmsg_ok(nlh, static_cast<int>(req.size())));
  CHECK(nlh->nlmsg_type == GENL_ID_CTRL);
  CHECK(nlh->nlmsg_seq == 5u);
  const auto* g = static_cast<const genlmsghdr*>(mnl_nlmsg_get_payload(nlh));
  CHECK(g->cmd == CTRL_CMD_GETFAMILY);
  std::string name;
  for (const nlattr* a : attrs_of(nlh, GENL_HDRLEN)) {
    if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_NAME) name = mnl_attr_get_str(a);
  }
  CHECK(name == "ethtool");
}

TEST_CASE("parse_genl_family_reply", "[ethtool_netlink]") {
  auto reply = [](const std::function<void(nlmsghdr*)>& fill) {
    return Datagram().genl(GENL_ID_CTRL, CTRL_CMD_NEWFAMILY, kSeq, fill).bytes();
  };
  SECTION("the id among other attributes, unknown ones included") {
    auto d = reply([](nlmsghdr* nlh) {
      mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, "ethtool");
      mnl_attr_put_u16(nlh, CTRL_ATTR_FAMILY_ID, 21);
      mnl_attr_put_u32(nlh, CTRL_ATTR_VERSION, 1);
      nlattr* ops = mnl_attr_nest_start(nlh, CTRL_ATTR_OPS);
      mnl_attr_put_u32(nlh, 1, 99);
      mnl_attr_nest_end(nlh, ops);
      mnl_attr_put_u32(nlh, 200, 1);  // a type from the future
    });
    auto r = parse_genl_family_reply(d, kSeq);
    REQUIRE(r.ok());
    CHECK(*r == 21);
  }
  SECTION("no such family: the kernel's ENOENT") {
    auto r = parse_genl_family_reply(Datagram().error(-ENOENT, kSeq).bytes(), kSeq);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ENOENT);
    CHECK(r.error().message == "No such file or directory");
  }
  SECTION("id missing") {
    auto r = parse_genl_family_reply(
        reply([](nlmsghdr* nlh) { mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, "ethtool"); }),
        kSeq);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == EPROTO);
    CHECK(r.error().message == "CTRL_ATTR_FAMILY_ID missing from family reply");
  }
  SECTION("id of the wrong width") {
    auto r = parse_genl_family_reply(
        reply([](nlmsghdr* nlh) { mnl_attr_put_u32(nlh, CTRL_ATTR_FAMILY_ID, 21); }), kSeq);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == EPROTO);
    CHECK(r.error().message.rfind("CTRL_ATTR_FAMILY_ID: invalid attribute", 0) == 0);
  }
  SECTION("family name without its NUL") {
    auto r = parse_genl_family_reply(reply([](nlmsghdr* nlh) {
                                       mnl_attr_put_u16(nlh, CTRL_ATTR_FAMILY_ID, 21);
                                       mnl_attr_put(nlh, CTRL_ATTR_FAMILY_NAME, 7, "ethtool");
                                     }),
                                     kSeq);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == EPROTO);
  }
  SECTION("a reply to another request") {
    auto d = Datagram()
                 .genl(GENL_ID_CTRL, CTRL_CMD_NEWFAMILY, kSeq + 1,
                       [](nlmsghdr* nlh) { mnl_attr_put_u16(nlh, CTRL_ATTR_FAMILY_ID, 21); })
                 .bytes();
    auto r = parse_genl_family_reply(d, kSeq);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ENOMSG);
  }
}

TEST_CASE("parse_pause_reply reads settings and statistics", "[ethtool_netlink]") {
  struct Case {
    const char* what;
    std::function<void(nlmsghdr*)> fill;
    std::optional<bool> autoneg, rx, tx;
    std::optional<std::uint64_t> tx_frames, rx_frames;
  };
  const std::vector<Case> cases = {
      {"full reply with PAD", put_full_pause, false, true, true, 0x1122334455667788ULL, 7},
      {"no statistics nest (kernel without stats, or flag not honoured)",
       [](nlmsghdr* nlh) {
         put_pause_header(nlh);
         mnl_attr_put_u8(nlh, ETHTOOL_A_PAUSE_AUTONEG, 1);
         mnl_attr_put_u8(nlh, ETHTOOL_A_PAUSE_RX, 0);
         mnl_attr_put_u8(nlh, ETHTOOL_A_PAUSE_TX, 0);
       },
       true, false, false, std::nullopt, std::nullopt},
      {"driver filled only rx_frames: tx stays absent",
       [](nlmsghdr* nlh) {
         mnl_attr_put_u8(nlh, ETHTOOL_A_PAUSE_RX, 1);
         nlattr* s = mnl_attr_nest_start(nlh, ETHTOOL_A_PAUSE_STATS);
         mnl_attr_put_u64(nlh, ETHTOOL_A_PAUSE_STAT_RX_FRAMES, 0);
         mnl_attr_nest_end(nlh, s);
       },
       std::nullopt, true, std::nullopt, std::nullopt, 0},
      {"empty statistics nest",
       [](nlmsghdr* nlh) {
         nlattr* s = mnl_attr_nest_start(nlh, ETHTOOL_A_PAUSE_STATS);
         mnl_attr_nest_end(nlh, s);
       },
       std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt},
      {"unknown attributes (newer kernels) are ignored",
       [](nlmsghdr* nlh) {
         put_pause_header(nlh);
         mnl_attr_put_u8(nlh, ETHTOOL_A_PAUSE_RX, 1);
         mnl_attr_put_u32(nlh, 6, 0);    // ETHTOOL_A_PAUSE_STATS_SRC (6.6+)
         mnl_attr_put_u64(nlh, 250, 1);  // not yet invented
         nlattr* s = mnl_attr_nest_start(nlh, ETHTOOL_A_PAUSE_STATS);
         mnl_attr_put_u64(nlh, ETHTOOL_A_PAUSE_STAT_TX_FRAMES, 5);
         mnl_attr_put_u64(nlh, 4, 3);      // proposed TX_PAUSE_STORM_EVENTS
         mnl_attr_put_strz(nlh, 77, "x");  // unknown, any type
         mnl_attr_put_u64(nlh, ETHTOOL_A_PAUSE_STAT_RX_FRAMES, 6);
         mnl_attr_nest_end(nlh, s);
       },
       std::nullopt, true, std::nullopt, 5, 6},
      {"any non-zero u8 is true",
       [](nlmsghdr* nlh) { mnl_attr_put_u8(nlh, ETHTOOL_A_PAUSE_TX, 2); }, std::nullopt,
       std::nullopt, true, std::nullopt, std::nullopt},
  };
  for (const auto& c : cases) {
    SECTION(c.what) {
      auto r =
          parse(Datagram().genl(kEthtoolFamily, ETHTOOL_MSG_PAUSE_GET_REPLY, kSeq, c.fill).bytes());
      REQUIRE(r.ok());
      CHECK(r->autoneg == c.autoneg);
      CHECK(r->rx == c.rx);
      CHECK(r->tx == c.tx);
      CHECK(r->tx_frames == c.tx_frames);
      CHECK(r->rx_frames == c.rx_frames);
    }
  }
}

TEST_CASE("parse_pause_reply rejects known attributes of the wrong type", "[ethtool_netlink]") {
  struct Case {
    const char* what;
    std::function<void(nlmsghdr*)> fill;
    const char* name;
  };
  const std::vector<Case> cases = {
      {"rx as u32", [](nlmsghdr* nlh) { mnl_attr_put_u32(nlh, ETHTOOL_A_PAUSE_RX, 1); },
       "ETHTOOL_A_PAUSE_RX"},
      {"autoneg empty",
       [](nlmsghdr* nlh) { mnl_attr_put(nlh, ETHTOOL_A_PAUSE_AUTONEG, 0, nullptr); },
       "ETHTOOL_A_PAUSE_AUTONEG"},
      {"stats nest too short to hold an attribute",
       [](nlmsghdr* nlh) {
         const std::uint16_t two = 2;
         mnl_attr_put(nlh, ETHTOOL_A_PAUSE_STATS, sizeof(two), &two);
       },
       "ETHTOOL_A_PAUSE_STATS"},
      {"tx_frames as u32",
       [](nlmsghdr* nlh) {
         nlattr* s = mnl_attr_nest_start(nlh, ETHTOOL_A_PAUSE_STATS);
         mnl_attr_put_u32(nlh, ETHTOOL_A_PAUSE_STAT_TX_FRAMES, 5);
         mnl_attr_nest_end(nlh, s);
       },
       "ETHTOOL_A_PAUSE_STAT_TX_FRAMES"},
  };
  for (const auto& c : cases) {
    SECTION(c.what) {
      auto r =
          parse(Datagram().genl(kEthtoolFamily, ETHTOOL_MSG_PAUSE_GET_REPLY, kSeq, c.fill).bytes());
      REQUIRE_FALSE(r.ok());
      CHECK(r.error().code == EPROTO);
      CHECK(r.error().message.rfind(std::string(c.name) + ": invalid attribute", 0) == 0);
    }
  }
}

TEST_CASE("parse_pause_reply reports kernel errors with their extended ack", "[ethtool_netlink]") {
  SECTION("capped error with extack text") {
    auto r = parse(Datagram().error(-EOPNOTSUPP, kSeq, "pause not supported here").bytes());
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == EOPNOTSUPP);
    CHECK(r.error().message == "Operation not supported (pause not supported here)");
  }
  SECTION("uncapped error: the TLVs follow the echoed request") {
    auto r = parse(Datagram().error(-ENODEV, kSeq, "no device matches name", false).bytes());
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ENODEV);
    CHECK(r.error().message == "No such device (no device matches name)");
  }
  SECTION("error without extack") {
    auto r = parse(Datagram().error(-EPERM, kSeq).bytes());
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == EPERM);
    CHECK(r.error().message == "Operation not permitted");
  }
  SECTION("a positive error code is malformed") {
    auto r = parse(Datagram().error(5, kSeq).bytes());
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == EPROTO);
  }
  SECTION("an ACK alone carries no reply") {
    auto r = parse(Datagram().error(0, kSeq).bytes());
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ENOMSG);
  }
  SECTION("an error for another request is skipped") {
    auto d = Datagram()
                 .error(-EBUSY, kSeq - 1)
                 .genl(kEthtoolFamily, ETHTOOL_MSG_PAUSE_GET_REPLY, kSeq, put_full_pause)
                 .bytes();
    auto r = parse(d);
    REQUIRE(r.ok());
    CHECK(r->rx_frames == 7u);
  }
}

TEST_CASE("parse_pause_reply rejects the wrong message", "[ethtool_netlink]") {
  SECTION("another family's message") {
    auto r = parse(Datagram()
                       .genl(kEthtoolFamily + 1, ETHTOOL_MSG_PAUSE_GET_REPLY, kSeq, put_full_pause)
                       .bytes());
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == EPROTO);
    CHECK(r.error().message == "unexpected netlink message type 28");
  }
  SECTION("another command's reply") {
    auto r = parse(Datagram()
                       .genl(kEthtoolFamily, ETHTOOL_MSG_PAUSE_GET_REPLY + 1, kSeq, put_full_pause)
                       .bytes());
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == EPROTO);
  }
  SECTION("a message too short for the generic-netlink header") {
    std::vector<std::uint64_t> buf(4);
    nlmsghdr* nlh = mnl_nlmsg_put_header(buf.data());
    nlh->nlmsg_type = kEthtoolFamily;
    nlh->nlmsg_seq = kSeq;
    const auto* p = reinterpret_cast<const std::uint8_t*>(nlh);
    auto r = parse(std::vector<std::uint8_t>(p, p + nlh->nlmsg_len));
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == EPROTO);
    CHECK(r.error().message == "truncated generic netlink header");
  }
}

TEST_CASE("parse_pause_reply never crashes on damaged bytes", "[ethtool_netlink]") {
  const auto good = full_pause_reply();

  SECTION("empty datagram") {
    auto r = parse({});
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ENOMSG);
  }
  SECTION("every truncation is an error") {
    for (std::size_t len = 1; len < good.size(); ++len) {
      auto r = parse(
          std::vector<std::uint8_t>(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(len)));
      INFO("length " << len);
      CHECK_FALSE(r.ok());
    }
  }
  SECTION("a message length beyond the datagram (or >= 2^31) is truncation, not a jump") {
    for (std::uint32_t len : {0x7fffffffU, 0x80000000U, 0xfffffff0U, 0xffffffffU}) {
      std::vector<std::uint8_t> d = good;
      std::memcpy(d.data(), &len, sizeof(len));  // nlmsg_len is the first field
      auto r = parse(d);
      INFO("nlmsg_len " << len);
      REQUIRE_FALSE(r.ok());
      CHECK(r.error().code == EPROTO);
    }
  }
  SECTION("misaligned input still parses") {
    std::vector<std::uint8_t> shifted(good.size() + 1);
    std::memcpy(shifted.data() + 1, good.data(), good.size());
    auto r =
        parse_pause_reply(std::span<const std::uint8_t>(shifted).subspan(1), kEthtoolFamily, kSeq);
    REQUIRE(r.ok());
    CHECK(r->tx_frames == 0x1122334455667788ULL);
  }
  SECTION("random bytes and random corruption") {
    std::mt19937 rng(12345);  // fixed seed: reproducible
    std::uniform_int_distribution<int> byte(0, 255);
    for (int i = 0; i < 2000; ++i) {
      std::vector<std::uint8_t> d = good;
      if (i % 2 == 0) {
        for (auto& b : d) b = static_cast<std::uint8_t>(byte(rng));
      } else {
        for (int k = 0; k < 4; ++k) {
          d[static_cast<std::size_t>(rng()) % d.size()] = static_cast<std::uint8_t>(byte(rng));
        }
      }
      // Either outcome is fine; the parsers must simply return (ASan/UBSan builds check the
      // reads stay inside the bytes).
      CHECK_NOTHROW(parse(d));
      CHECK_NOTHROW(parse_genl_family_reply(d, kSeq));
    }
  }
}

}  // namespace rdmatop
