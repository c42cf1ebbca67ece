#include <catch2/catch.hpp>
#include <cerrno>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "collector/collect.h"
#include "tests/support/fake_file_source.h"
#include "tests/support/port_netdevs.h"
#include "tests/support/source_status_of.h"
#include "tests/support/unsupported_ethtool_source.h"

namespace rdmatop {
namespace {

using testing::FakeFileSource;
using testing::with_port_netdevs;

void add_netdev(FakeFileSource& fs, const std::string& name,
                const std::string& speed = "100000\n") {
  const std::string n = "class/net/" + name + "/";
  fs.file(n + "mtu", "4200\n")
      .file(n + "operstate", "up\n")
      .file(n + "carrier_changes", "3\n")
      .file(n + "speed", speed)
      .file(n + "address", "b8:59:9f:a1:b2:c4\n")
      .file(n + "statistics/rx_bytes", "123456789\n")
      .file(n + "statistics/tx_bytes", "987654321\n")
      .file(n + "statistics/rx_dropped", "0\n");
}

void collect(const FileSource& fs, Snapshot& snap) {
  testing::UnsupportedEthtoolSource ethtool;
  const CollectContext ctx{fs, ethtool, {}};
  collect_netdev_sysfs(ctx, snap);
}

TEST_CASE("netdev sysfs: reads each distinct port netdev once, sorted", "[netdev_sysfs]") {
  FakeFileSource fs;
  add_netdev(fs, "ens1f0np0");
  add_netdev(fs, "bond0");
  add_netdev(fs, "eth9");  // not behind an RDMA port: not read
  Snapshot snap = with_port_netdevs({"ens1f0np0", "", "bond0", "ens1f0np0"});
  collect(fs, snap);

  REQUIRE(snap.netdevs.size() == 2);
  CHECK(snap.netdevs[0].name == "bond0");
  const NetdevSample& n = snap.netdevs[1];
  CHECK(n.name == "ens1f0np0");
  CHECK(n.mtu == 4200u);
  CHECK(n.operstate == "up");
  CHECK(n.carrier_changes == 3u);
  CHECK(n.speed_mbps == 100000);
  CHECK(n.address == "b8:59:9f:a1:b2:c4");
  CHECK(n.statistics ==
        CounterMap{{"rx_bytes", 123456789}, {"rx_dropped", 0}, {"tx_bytes", 987654321}});
  CHECK_FALSE(n.driver.has_value());  // ethtool's job, not this collector's

  REQUIRE(snap.sources.size() == 2);
  CHECK(snap.sources[0].source == "netdev");
  CHECK(snap.sources[0].target == "bond0");
  CHECK(snap.sources[1].target == "ens1f0np0");
  for (const auto& s : snap.sources) {
    CHECK(s.state == SourceState::ok);
    CHECK(s.message.empty());
  }
  CHECK(fs.count(FakeFileSource::Op::list, "class/net/eth9") == 0);
}

TEST_CASE("netdev sysfs: speed -1 is kept, EINVAL speed is absent", "[netdev_sysfs]") {
  FakeFileSource fs;
  add_netdev(fs, "eth0", "-1\n");
  add_netdev(fs, "eth1");
  fs.fail("class/net/eth1/speed", EINVAL);  // link down
  Snapshot snap = with_port_netdevs({"eth0", "eth1"});
  collect(fs, snap);

  REQUIRE(snap.netdevs.size() == 2);
  CHECK(snap.netdevs[0].speed_mbps == -1);
  CHECK_FALSE(snap.netdevs[1].speed_mbps.has_value());
  CHECK(test::status_of(snap, "eth1").state == SourceState::ok);
  CHECK(test::status_of(snap, "eth1").message.empty());
}

TEST_CASE("netdev sysfs: a missing netdev is an error without a sample", "[netdev_sysfs]") {
  FakeFileSource fs;
  add_netdev(fs, "eth0");
  Snapshot snap = with_port_netdevs({"eth0", "gone0"});
  collect(fs, snap);

  REQUIRE(snap.netdevs.size() == 1);
  CHECK(snap.netdevs[0].name == "eth0");
  const SourceStatus& s = test::status_of(snap, "gone0");
  CHECK(s.source == "netdev");
  CHECK(s.state == SourceState::error);
  CHECK_THAT(s.message, Catch::Contains("netdev not found"));
}

TEST_CASE("netdev sysfs: unreadable and garbage statistics", "[netdev_sysfs]") {
  FakeFileSource fs;
  add_netdev(fs, "eth0");
  fs.fail("class/net/eth0/statistics/tx_bytes", EACCES);
  fs.file("class/net/eth0/statistics/rx_dropped", "lots\n");
  fs.file("class/net/eth0/mtu", "99999999999\n");
  Snapshot snap = with_port_netdevs({"eth0"});
  collect(fs, snap);

  REQUIRE(snap.netdevs.size() == 1);
  const NetdevSample& n = snap.netdevs[0];
  CHECK(n.statistics == CounterMap{{"rx_bytes", 123456789}});
  CHECK_FALSE(n.mtu.has_value());
  const SourceStatus& s = test::status_of(snap, "eth0");
  CHECK(s.state == SourceState::error);
  CHECK_THAT(s.message, Catch::Contains("statistics/tx_bytes: Permission denied"));
  CHECK_THAT(s.message, Catch::Contains("statistics/rx_dropped: not an unsigned decimal number"));
  CHECK_THAT(s.message, Catch::Contains("mtu: out of range"));
}

TEST_CASE("netdev sysfs: optional files and a missing statistics dir", "[netdev_sysfs]") {
  FakeFileSource fs;
  fs.file("class/net/eth0/mtu", "1500\n")
      .file("class/net/eth0/operstate", "down\n")
      .file("class/net/eth0/address", "00:11:22:33:44:55\n");
  Snapshot snap = with_port_netdevs({"eth0"});
  collect(fs, snap);

  REQUIRE(snap.netdevs.size() == 1);
  const NetdevSample& n = snap.netdevs[0];
  CHECK_FALSE(n.carrier_changes.has_value());
  CHECK_FALSE(n.speed_mbps.has_value());
  CHECK(n.statistics.empty());
  const SourceStatus& s = test::status_of(snap, "eth0");
  CHECK(s.state == SourceState::ok);
  CHECK(s.message == "no statistics/ directory");
}

TEST_CASE("netdev sysfs: a netdev vanishing mid-read leaves no sample", "[netdev_sysfs]") {
  for (std::size_t n = 0; n < 6; ++n) {
    FakeFileSource fs;
    add_netdev(fs, "eth0");
    add_netdev(fs, "eth1");
    fs.vanish_after("class/net/eth0", n);
    Snapshot snap = with_port_netdevs({"eth0", "eth1"});
    collect(fs, snap);
    INFO("vanish after " << n << " operations");
    REQUIRE(snap.netdevs.size() == 1);
    CHECK(snap.netdevs[0].name == "eth1");
    const SourceStatus& s = test::status_of(snap, "eth0");
    CHECK(s.state == SourceState::error);
    CHECK((s.message == "netdev vanished during read" || s.message.find("netdev not found") == 0));
    CHECK(test::status_of(snap, "eth1").state == SourceState::ok);
  }
}

TEST_CASE("netdev sysfs: names that are not netdev names never become paths", "[netdev_sysfs]") {
  FakeFileSource fs;
  add_netdev(fs, "eth0");
  Snapshot snap = with_port_netdevs({"../infiniband", "eth0/../eth0"});
  collect(fs, snap);
  CHECK(snap.netdevs.empty());
  REQUIRE(snap.sources.size() == 2);
  for (const auto& s : snap.sources) {
    CHECK(s.state == SourceState::error);
    CHECK_THAT(s.message, Catch::StartsWith("not a netdev name"));
  }
  CHECK(fs.count(FakeFileSource::Op::list, "") == 0);
  CHECK(fs.count(FakeFileSource::Op::read, "") == 0);
}

}  // namespace
}  // namespace rdmatop

namespace rdmatop {
namespace {

/// A network namespace as the collector asks it: ifindexes by name, and rows by ifindex.
class FakeLinkStats final : public LinkStatsSource {
 public:
  std::map<std::string, std::uint32_t> ifindexes;
  std::map<std::uint32_t, LinkStats> rows;
  std::optional<Error> failure;  ///< the exchange failed: every request gets this
  int exchanges = 0;
  std::vector<std::uint32_t> asked;
  std::vector<Result<LinkStats>> stats(std::span<const std::uint32_t> wanted) override {
    ++exchanges;
    asked.assign(wanted.begin(), wanted.end());
    std::vector<Result<LinkStats>> out;
    for (const std::uint32_t ifindex : wanted) {
      if (failure) {
        out.emplace_back(*failure);
      } else if (const auto it = rows.find(ifindex); it != rows.end()) {
        out.emplace_back(it->second);
      } else {
        out.emplace_back(errno_error(ENODEV, "RTM_GETSTATS ifindex " + std::to_string(ifindex)));
      }
    }
    return out;
  }
  Result<std::uint32_t> ifindex(const std::string& name) override {
    const auto it = ifindexes.find(name);
    if (it == ifindexes.end()) return errno_error(ENODEV, "SIOCGIFINDEX " + name);
    return it->second;
  }
};

/// A row of the 24 sysfs fields: field i is `base` + i.
LinkStats row_of(std::uint32_t ifindex, std::uint64_t base) {
  LinkStats row;
  row.ifindex = ifindex;
  row.count = kLinkStatsFields.size();
  for (std::size_t i = 0; i < row.count; ++i) row.values[i] = base + i;
  return row;
}

/// eth0 in sysfs with ifindex `ifindex`, which this namespace gives it too, with `row` as its
/// statistics.
void serve_eth0(FakeFileSource& fs, FakeLinkStats& links, std::uint32_t ifindex,
                const LinkStats& row) {
  add_netdev(fs, "eth0");
  fs.file("class/net/eth0/ifindex", std::to_string(ifindex) + "\n");
  links.ifindexes = {{"eth0", ifindex}};
  links.rows = {{ifindex, row}};
}

void collect(const FileSource& fs, LinkStatsSource& links, Snapshot& snap) {
  testing::UnsupportedEthtoolSource ethtool;
  CollectContext ctx{fs, ethtool, {}};
  ctx.link_stats = &links;
  collect_netdev_sysfs(ctx, snap);
}

TEST_CASE("netdev: statistics from rtnetlink where the namespace agrees with sysfs",
          "[netdev_sysfs][link_stats]") {
  FakeFileSource fs;
  add_netdev(fs, "eth0");
  add_netdev(fs, "eth1");
  fs.file("class/net/eth0/ifindex", "7\n").file("class/net/eth1/ifindex", "8\n");
  FakeLinkStats links;
  links.ifindexes = {{"eth0", 7}, {"eth1", 8}};
  links.rows = {{7, row_of(7, 100)}, {8, row_of(8, 200)}, {9, row_of(9, 300)}};
  Snapshot snap = with_port_netdevs({"eth0", "eth1"});
  collect(fs, links, snap);

  CHECK(links.exchanges == 1);  // one exchange for all netdevs of the tick
  CHECK(links.asked == std::vector<std::uint32_t>{7, 8});  // only theirs
  CHECK(fs.count(FakeFileSource::Op::read, "class/net/eth0/statistics") == 0);
  CHECK(fs.count(FakeFileSource::Op::list, "class/net/eth0/statistics") == 0);
  REQUIRE(snap.netdevs.size() == 2);
  const CounterMap& eth0 = snap.netdevs[0].statistics;
  REQUIRE(eth0.size() == kLinkStatsFields.size());
  for (std::size_t i = 0; i < kLinkStatsFields.size(); ++i) {
    INFO(kLinkStatsFields[i]);
    CHECK(eth0.at(kLinkStatsFields[i]) == 100 + i);
  }
  CHECK(snap.netdevs[1].statistics.at("rx_bytes") == 202);
  // The maps of two netdevs share their names, as maps read from sysfs listings do.
  CHECK(snap.netdevs[0].statistics.names() == snap.netdevs[1].statistics.names());
  CHECK(snap.netdevs[0].mtu == 4200u);  // the rest still from sysfs
  CHECK(test::status_of(snap, "eth0").state == SourceState::ok);
  CHECK(test::status_of(snap, "eth0").message.empty());
}

TEST_CASE("netdev: a row of a shorter struct gives the fields it has",
          "[netdev_sysfs][link_stats]") {
  FakeFileSource fs;
  FakeLinkStats links;
  LinkStats row = row_of(3, 10);
  row.count = 23;  // shorter than any kernel sends: no rx_nohandler
  serve_eth0(fs, links, 3, row);
  Snapshot snap = with_port_netdevs({"eth0"});
  collect(fs, links, snap);
  REQUIRE(snap.netdevs.size() == 1);
  const CounterMap& stats = snap.netdevs[0].statistics;
  CHECK(stats.size() == 23);
  CHECK_FALSE(stats.contains("rx_nohandler"));
  CHECK(stats.at("tx_compressed") == 32);
}

TEST_CASE("netdev: statistics from sysfs when rtnetlink cannot serve the netdev, saying why",
          "[netdev_sysfs][link_stats]") {
  FakeFileSource fs;
  FakeLinkStats links;
  serve_eth0(fs, links, 7, row_of(7, 100));
  std::string why;
  SECTION("the exchange failed") {
    links.failure = errno_error(EOPNOTSUPP, "RTM_GETSTATS");
    why = "RTM_GETSTATS";
  }
  SECTION("sysfs is another namespace's: the same name has another ifindex here") {
    links.ifindexes = {{"eth0", 2}};
    why = "ifindex 7 in sysfs, 2 in this network namespace";
  }
  SECTION("no such netdev in this namespace") {
    links.ifindexes.clear();
    why = "SIOCGIFINDEX eth0";
  }
  SECTION("the kernel has no such ifindex (the netdev vanished since)") {
    links.rows = {{6, row_of(6, 100)}};
    why = "RTM_GETSTATS ifindex 7";
  }
  SECTION("no ifindex file") {
    fs.fail("class/net/eth0/ifindex", ENOENT);
    why = "no ifindex in sysfs";
  }
  Snapshot snap = with_port_netdevs({"eth0"});
  collect(fs, links, snap);
  REQUIRE(snap.netdevs.size() == 1);
  CHECK(snap.netdevs[0].statistics ==
        CounterMap{{"rx_bytes", 123456789}, {"rx_dropped", 0}, {"tx_bytes", 987654321}});
  const SourceStatus& s = test::status_of(snap, "eth0");
  CHECK_THAT(s.message, Catch::Contains("statistics from sysfs: " + why));
}

}  // namespace
}  // namespace rdmatop
