#include <catch2/catch.hpp>
#include <cerrno>
#include <string>
#include <vector>

#include "collector/collect.h"
#include "tests/support/fake_file_source.h"
#include "tests/support/source_status_of.h"
#include "tests/support/unsupported_ethtool_source.h"

namespace rdmatop {
namespace {

using testing::FakeFileSource;

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

// A snapshot whose RDMA ports name these netdevs (what collect_rdma_sysfs leaves behind).
Snapshot with_port_netdevs(const std::vector<std::string>& netdevs) {
  Snapshot snap;
  DeviceSample dev;
  dev.name = "mlx5_0";
  std::uint32_t port = 1;
  for (const auto& name : netdevs) {
    PortSample p;
    p.port = port++;
    p.netdev = name;
    dev.ports.push_back(p);
  }
  snap.devices.push_back(dev);
  return snap;
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
