// devlink requests and reply parsers: on messages built here with libmnl the way the kernel lays
// them out (net/devlink/dev.c devlink_nl_info_fill, health.c devlink_nl_health_reporter_fill),
// and on the recorded replies in tests/fixtures/netlink (see its README).
#include <libmnl/libmnl.h>
#include <linux/devlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <catch2/catch.hpp>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "collector/parse/devlink_parse.h"
#include "tests/support/netlink_fixture.h"
#include "tests/support/nldev_messages.h"

namespace rdmatop {
namespace {

using testing::Reply;
constexpr std::uint32_t kDevlinkSeq = 91;
constexpr std::uint16_t kDevlinkFamily = 0x1b;

void put_genl(nlmsghdr* nlh, std::uint8_t cmd) {
  auto* g = static_cast<genlmsghdr*>(mnl_nlmsg_put_extra_header(nlh, sizeof(genlmsghdr)));
  g->cmd = cmd;
  g->version = DEVLINK_GENL_VERSION;
}

void put_u64(nlmsghdr* nlh, std::uint16_t type, std::uint64_t v) {
  mnl_attr_put(nlh, DEVLINK_ATTR_PAD, 0, nullptr);
  mnl_attr_put_u64(nlh, type, v);
}

void put_version(nlmsghdr* nlh, std::uint16_t kind, const char* name, const char* value) {
  nlattr* n = mnl_attr_nest_start(nlh, kind);
  mnl_attr_put_strz(nlh, DEVLINK_ATTR_INFO_VERSION_NAME, name);
  mnl_attr_put_strz(nlh, DEVLINK_ATTR_INFO_VERSION_VALUE, value);
  mnl_attr_nest_end(nlh, n);
}

std::vector<std::uint8_t> info_reply() {
  return Reply()
      .raw(kDevlinkFamily, kDevlinkSeq,
           [](nlmsghdr* nlh) {
             put_genl(nlh, DEVLINK_CMD_INFO_GET);
             mnl_attr_put_strz(nlh, DEVLINK_ATTR_BUS_NAME, "pci");
             mnl_attr_put_strz(nlh, DEVLINK_ATTR_DEV_NAME, "0000:5e:00.1");
             mnl_attr_put_strz(nlh, DEVLINK_ATTR_INFO_DRIVER_NAME, "mlx5_core");
             put_version(nlh, DEVLINK_ATTR_INFO_VERSION_FIXED, "fw.psid", "MT_0000000359");
             put_version(nlh, DEVLINK_ATTR_INFO_VERSION_RUNNING, "fw.version", "22.39.1002");
             put_version(nlh, DEVLINK_ATTR_INFO_VERSION_STORED, "fw.version", "22.39.1002");
           })
      .done(kDevlinkSeq)
      .bytes();
}

TEST_CASE("devlink requests are dumps of the right command", "[devlink]") {
  for (const auto& [bytes, cmd] :
       {std::pair{build_devlink_info_request(kDevlinkFamily, 5), DEVLINK_CMD_INFO_GET},
        std::pair{build_devlink_health_request(kDevlinkFamily, 5),
                  DEVLINK_CMD_HEALTH_REPORTER_GET}}) {
    REQUIRE(bytes.size() == NLMSG_HDRLEN + GENL_HDRLEN);
    nlmsghdr nlh{};
    std::memcpy(&nlh, bytes.data(), sizeof(nlh));
    CHECK(nlh.nlmsg_len == bytes.size());
    CHECK(nlh.nlmsg_type == kDevlinkFamily);
    CHECK(nlh.nlmsg_seq == 5);
    CHECK(nlh.nlmsg_flags == (NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP));
    genlmsghdr g{};
    std::memcpy(&g, bytes.data() + NLMSG_HDRLEN, sizeof(g));
    CHECK(g.cmd == cmd);
    CHECK(g.version == DEVLINK_GENL_VERSION);
  }
}

TEST_CASE("parse_devlink_info_reply: driver and the three version kinds", "[devlink]") {
  auto r = parse_devlink_info_reply(info_reply(), kDevlinkFamily, kDevlinkSeq);
  REQUIRE(r.ok());
  REQUIRE(r->size() == 1);
  const DevlinkInfo& d = r->front();
  CHECK(d.bus_name == "pci");
  CHECK(d.dev_name == "0000:5e:00.1");
  CHECK(d.driver == "mlx5_core");
  CHECK(d.serial_number.empty());
  CHECK(d.fixed.at("fw.psid") == "MT_0000000359");
  CHECK(d.running.at("fw.version") == "22.39.1002");
  CHECK(d.stored.at("fw.version") == "22.39.1002");
  CHECK(d.reporters.empty());
}

TEST_CASE("devlink fixture: info dump with two instances, repeated versions, unknown attr",
          "[devlink][fixture]") {
  const auto bytes = test::netlink_fixture("devlink_info_dump.bin");
  CHECK(devlink_reply_complete(bytes, 1));
  CHECK_FALSE(
      devlink_reply_complete(std::vector<std::uint8_t>(bytes.begin(), bytes.end() - 20), 1));
  auto r = parse_devlink_info_reply(bytes, 0x14, 1);
  REQUIRE(r.ok());
  REQUIRE(r->size() == 2);
  const DevlinkInfo& mlx = (*r)[0];
  CHECK(mlx.dev_name == "0000:3b:00.0");
  CHECK(mlx.serial_number == "MT2116X09299");
  CHECK(mlx.board_serial_number == "MT2116X09299");
  CHECK(mlx.fixed == std::map<std::string, std::string, std::less<>>{{"fw.psid", "MT_0000000012"}});
  CHECK(mlx.running == std::map<std::string, std::string, std::less<>>{
                           {"fw", "16.35.2000"}, {"fw.version", "16.35.2000"}});
  CHECK(mlx.stored.at("fw.version") == "16.35.3006");
  CHECK((*r)[1].bus_name == "netdevsim");
  CHECK((*r)[1].driver == "netdevsim");
  CHECK((*r)[1].running.empty());
}

TEST_CASE("devlink fixture: health dump with device and port reporters", "[devlink][fixture]") {
  auto r = parse_devlink_health_reply(test::netlink_fixture("devlink_health_dump.bin"), 0x14, 1);
  REQUIRE(r.ok());
  REQUIRE(r->size() == 3);
  const auto& fw = (*r)[0];
  CHECK(fw.dev_name == "0000:3b:00.0");
  CHECK_FALSE(fw.port_index);
  CHECK(fw.reporter.name == "fw");
  CHECK(fw.reporter.state == "healthy");
  CHECK(fw.reporter.error_count == 0U);
  CHECK(fw.reporter.grace_period_ms == 0U);
  CHECK(fw.reporter.auto_recover == true);
  CHECK_FALSE(fw.reporter.last_dump_ts_ms);
  const auto& fatal = (*r)[1].reporter;
  CHECK(fatal.name == "fw_fatal");
  CHECK(fatal.state == "error");
  CHECK(fatal.error_count == 2U);
  CHECK(fatal.recover_count == 1U);
  CHECK(fatal.grace_period_ms == 1200000U);
  CHECK(fatal.last_dump_ts_ms == 81234567U);
  CHECK(fatal.auto_dump == true);
  CHECK((*r)[2].port_index == 65535U);
  CHECK((*r)[2].reporter.name == "tx");
  CHECK((*r)[2].reporter.error_count == 3U);
}

TEST_CASE("devlink fixtures: empty dump, kernel errors", "[devlink][fixture]") {
  auto empty = parse_devlink_info_reply(test::netlink_fixture("devlink_empty_dump.bin"), 0x14, 1);
  REQUIRE(empty.ok());
  CHECK(empty->empty());
  auto perm = parse_devlink_health_reply(test::netlink_fixture("devlink_eperm.bin"), 0x14, 1);
  REQUIRE_FALSE(perm.ok());
  CHECK(perm.error().code == EPERM);
  CHECK(perm.error().message.find("devlink: operation not permitted") != std::string::npos);
  auto enoent = parse_devlink_info_reply(test::netlink_fixture("genl_family_enoent.bin"), 0x14, 1);
  REQUIRE_FALSE(enoent.ok());
  CHECK(enoent.error().code == ENOENT);
}

TEST_CASE("devlink parsers turn kernel errors into their errno", "[devlink]") {
  for (const int e : {EOPNOTSUPP, EPERM, ENODEV}) {
    auto r = parse_devlink_info_reply(Reply().error(kDevlinkSeq, -e, "why").bytes(), kDevlinkFamily,
                                      kDevlinkSeq);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == e);
    CHECK(r.error().message.find("why") != std::string::npos);
  }
}

TEST_CASE("devlink parsers reject malformed replies with EPROTO", "[devlink]") {
  const auto good = info_reply();
  SECTION("every truncation") {
    for (std::size_t n = 1; n < good.size(); ++n) {
      auto r = parse_devlink_info_reply(std::vector<std::uint8_t>(good.begin(), good.begin() + n),
                                        kDevlinkFamily, kDevlinkSeq);
      REQUIRE_FALSE(r.ok());
      CHECK(r.error().code == EPROTO);
    }
  }
  SECTION("no DONE") {
    auto bytes = good;
    const std::size_t done_len = NLMSG_ALIGN(NLMSG_HDRLEN + sizeof(int));
    REQUIRE(bytes.size() > done_len);
    // erase, not resize: GCC 12 at -O1 cannot see the size check and warns that resize's
    // grow path may memset ~2^64 bytes (-Wstringop-overflow).
    bytes.erase(bytes.end() - static_cast<std::ptrdiff_t>(done_len), bytes.end());
    CHECK(parse_devlink_info_reply(bytes, kDevlinkFamily, kDevlinkSeq).error().code == EPROTO);
  }
  SECTION("a wrong-typed attribute") {
    auto bytes = Reply()
                     .raw(kDevlinkFamily, kDevlinkSeq,
                          [](nlmsghdr* nlh) {
                            put_genl(nlh, DEVLINK_CMD_HEALTH_REPORTER_GET);
                            mnl_attr_put_strz(nlh, DEVLINK_ATTR_BUS_NAME, "pci");
                            mnl_attr_put_strz(nlh, DEVLINK_ATTR_DEV_NAME, "x");
                            nlattr* n = mnl_attr_nest_start(nlh, DEVLINK_ATTR_HEALTH_REPORTER);
                            mnl_attr_put_strz(nlh, DEVLINK_ATTR_HEALTH_REPORTER_NAME, "fw");
                            mnl_attr_put_u8(nlh, DEVLINK_ATTR_HEALTH_REPORTER_ERR_COUNT, 1);
                            mnl_attr_nest_end(nlh, n);
                          })
                     .done(kDevlinkSeq)
                     .bytes();
    auto r = parse_devlink_health_reply(bytes, kDevlinkFamily, kDevlinkSeq);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == EPROTO);
    CHECK(r.error().message.find("HEALTH_REPORTER_ERR_COUNT") != std::string::npos);
  }
  SECTION("a reporter without a name, an instance without DEV_NAME") {
    auto no_name = Reply()
                       .raw(kDevlinkFamily, kDevlinkSeq,
                            [](nlmsghdr* nlh) {
                              put_genl(nlh, DEVLINK_CMD_HEALTH_REPORTER_GET);
                              mnl_attr_put_strz(nlh, DEVLINK_ATTR_BUS_NAME, "pci");
                              mnl_attr_put_strz(nlh, DEVLINK_ATTR_DEV_NAME, "x");
                              nlattr* n = mnl_attr_nest_start(nlh, DEVLINK_ATTR_HEALTH_REPORTER);
                              put_u64(nlh, DEVLINK_ATTR_HEALTH_REPORTER_ERR_COUNT, 1);
                              mnl_attr_nest_end(nlh, n);
                            })
                       .done(kDevlinkSeq)
                       .bytes();
    CHECK(parse_devlink_health_reply(no_name, kDevlinkFamily, kDevlinkSeq).error().code == EPROTO);
    auto no_dev = Reply()
                      .raw(kDevlinkFamily, kDevlinkSeq,
                           [](nlmsghdr* nlh) {
                             put_genl(nlh, DEVLINK_CMD_INFO_GET);
                             mnl_attr_put_strz(nlh, DEVLINK_ATTR_BUS_NAME, "pci");
                           })
                      .done(kDevlinkSeq)
                      .bytes();
    CHECK(parse_devlink_info_reply(no_dev, kDevlinkFamily, kDevlinkSeq).error().code == EPROTO);
  }
  SECTION("another command, another family") {
    CHECK(parse_devlink_health_reply(good, kDevlinkFamily, kDevlinkSeq).error().code == EPROTO);
    CHECK(parse_devlink_info_reply(good, kDevlinkFamily + 1, kDevlinkSeq).error().code == EPROTO);
  }
  SECTION("garbage") {
    const std::vector<std::uint8_t> junk{0xff, 0xff, 0xff, 0x7f, 1,  2,  3,  4,  5,  6,
                                         7,    8,    9,    10,   11, 12, 13, 14, 15, 16};
    CHECK(parse_devlink_info_reply(junk, kDevlinkFamily, kDevlinkSeq).error().code == EPROTO);
    CHECK(parse_devlink_info_reply({}, kDevlinkFamily, kDevlinkSeq).error().code == EPROTO);
  }
}

TEST_CASE("devlink parsers skip messages of other requests", "[devlink]") {
  auto bytes = Reply().error(kDevlinkSeq - 1, -EPERM).bytes();
  const auto good = info_reply();
  bytes.insert(bytes.end(), good.begin(), good.end());
  auto r = parse_devlink_info_reply(bytes, kDevlinkFamily, kDevlinkSeq);
  REQUIRE(r.ok());
  CHECK(r->size() == 1);
}

}  // namespace
}  // namespace rdmatop
