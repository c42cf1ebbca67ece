// collect_ethtool against a scripted EthtoolSource: how each outcome of the three calls lands in
// the NetdevSample and in the "ethtool" SourceStatus.
#include <catch2/catch.hpp>

#include <cerrno>
#include <deque>
#include <map>
#include <string>

#include "collector/collect.h"

namespace rdmatop {
namespace {

/// Per interface: a queue of stats results (the last one repeats), one driver and one pause
/// result. Unknown interfaces answer ENODEV, like the kernel.
class ScriptedEthtool final : public EthtoolSource {
 public:
  std::map<std::string, std::deque<Result<CounterMap>>> stats_script;
  std::map<std::string, Result<DriverInfo>> driver_script;
  std::map<std::string, Result<PauseInfo>> pause_script;
  std::map<std::string, int> calls;  ///< every call, by "method:ifname"

  Result<CounterMap> stats(const std::string& ifname) override {
    ++calls["stats:" + ifname];
    auto it = stats_script.find(ifname);
    if (it == stats_script.end() || it->second.empty()) return vanished("GSTATS", ifname);
    Result<CounterMap> r = it->second.front();
    if (it->second.size() > 1) it->second.pop_front();
    return r;
  }
  Result<DriverInfo> driver_info(const std::string& ifname) override {
    ++calls["driver:" + ifname];
    auto it = driver_script.find(ifname);
    return it == driver_script.end() ? Result<DriverInfo>(vanished("GDRVINFO", ifname))
                                     : it->second;
  }
  Result<PauseInfo> pause(const std::string& ifname) override {
    ++calls["pause:" + ifname];
    auto it = pause_script.find(ifname);
    return it == pause_script.end() ? Result<PauseInfo>(vanished("GPAUSEPARAM", ifname))
                                    : it->second;
  }
  std::string describe() const override { return "scripted"; }

 private:
  static Error vanished(const std::string& call, const std::string& ifname) {
    return errno_error(ENODEV, "ethtool " + call + " " + ifname);
  }
};

class NoFiles final : public FileSource {
 public:
  Result<std::string> read(std::string_view) const override { return errno_error(ENOENT, "x"); }
  Result<std::vector<std::string>> list(std::string_view) const override {
    return errno_error(ENOENT, "x");
  }
  Result<std::string> read_link(std::string_view) const override {
    return errno_error(ENOENT, "x");
  }
  std::string describe() const override { return "none"; }
};

Snapshot snapshot_with_netdevs(std::initializer_list<const char*> names) {
  Snapshot snap;
  for (const char* n : names) {
    NetdevSample s;
    s.name = n;
    s.mtu = 1500;  // from the netdev collector; must survive
    snap.netdevs.push_back(s);
  }
  return snap;
}

const SourceStatus& status_for(const Snapshot& snap, const std::string& target) {
  for (const auto& s : snap.sources) {
    if (s.source == "ethtool" && s.target == target) return s;
  }
  FAIL("no ethtool status for " << target);
  throw std::logic_error("unreachable");
}

const NetdevSample& netdev(const Snapshot& snap, const std::string& name) {
  for (const auto& n : snap.netdevs) {
    if (n.name == name) return n;
  }
  FAIL("no netdev " << name);
  throw std::logic_error("unreachable");
}

struct EthtoolFixture {
  NoFiles files;
  ScriptedEthtool ethtool;
  CollectContext ctx{files, ethtool, {}};

  void script_healthy(const std::string& ifname, CounterMap stats) {
    ethtool.stats_script[ifname] = {std::move(stats)};
    ethtool.driver_script.insert_or_assign(
        ifname, Result<DriverInfo>(DriverInfo{"mlx5_core", "6.1", "16.35.2000", "0000:3b:00.0"}));
    PauseInfo pause;
    pause.autoneg = false;
    pause.rx = true;
    pause.tx = true;
    pause.rx_frames = 11;
    pause.tx_frames = 22;
    ethtool.pause_script.insert_or_assign(ifname, Result<PauseInfo>(pause));
  }
};

}  // namespace

TEST_CASE("collect_ethtool fills stats, driver and pause of a healthy netdev",
          "[ethtool_collector]") {
  EthtoolFixture f;
  f.script_healthy("ens1f0", {{"rx_pause_ctrl_phy", 5}, {"rx_prio3_pause", 7}});
  Snapshot snap = snapshot_with_netdevs({"ens1f0"});

  collect_ethtool(f.ctx, snap);

  const NetdevSample& n = netdev(snap, "ens1f0");
  CHECK(n.mtu == 1500u);
  CHECK(n.ethtool == CounterMap{{"rx_pause_ctrl_phy", 5}, {"rx_prio3_pause", 7}});
  REQUIRE(n.driver.has_value());
  CHECK(n.driver->driver == "mlx5_core");
  CHECK(n.driver->bus_info == "0000:3b:00.0");
  REQUIRE(n.pause.has_value());
  CHECK(n.pause->rx == true);
  CHECK(n.pause->rx_frames == 11u);
  CHECK(n.pause->tx_frames == 22u);
  const SourceStatus& st = status_for(snap, "ens1f0");
  CHECK(st.state == SourceState::ok);
  CHECK(st.message.empty());
  CHECK(snap.sources.size() == 1);
}

TEST_CASE("collect_ethtool: EOPNOTSUPP statistics are no_data, not an error",
          "[ethtool_collector]") {
  EthtoolFixture f;
  f.script_healthy("veth0", {});
  f.ethtool.stats_script["veth0"] = {errno_error(EOPNOTSUPP, "ethtool GSSET_INFO veth0")};
  f.ethtool.pause_script.insert_or_assign(
      "veth0", Result<PauseInfo>(errno_error(EOPNOTSUPP, "ethtool GPAUSEPARAM veth0")));
  Snapshot snap = snapshot_with_netdevs({"veth0"});

  collect_ethtool(f.ctx, snap);

  const NetdevSample& n = netdev(snap, "veth0");
  CHECK(n.ethtool.empty());
  CHECK(n.driver.has_value());       // still read
  CHECK_FALSE(n.pause.has_value());  // unsupported: absent, and not worth a message
  const SourceStatus& st = status_for(snap, "veth0");
  CHECK(st.state == SourceState::no_data);
  CHECK(st.message == "no ethtool statistics: ethtool GSSET_INFO veth0: Operation not supported");
}

TEST_CASE("collect_ethtool: EACCES is an error carrying the source's message",
          "[ethtool_collector]") {
  EthtoolFixture f;
  f.script_healthy("ens1f0", {});
  f.ethtool.stats_script["ens1f0"] = {errno_error(EACCES, "ethtool GSTATS ens1f0")};
  Snapshot snap = snapshot_with_netdevs({"ens1f0"});

  collect_ethtool(f.ctx, snap);

  const SourceStatus& st = status_for(snap, "ens1f0");
  CHECK(st.state == SourceState::error);
  CHECK(st.message == "ethtool GSTATS ens1f0: Permission denied");
  CHECK(netdev(snap, "ens1f0").ethtool.empty());
  CHECK(netdev(snap, "ens1f0").driver.has_value());  // other calls still attempted
}

TEST_CASE("collect_ethtool: a vanished netdev is an error and is not asked again",
          "[ethtool_collector]") {
  EthtoolFixture f;  // nothing scripted: every call answers ENODEV
  Snapshot snap = snapshot_with_netdevs({"ens9"});

  collect_ethtool(f.ctx, snap);

  const SourceStatus& st = status_for(snap, "ens9");
  CHECK(st.state == SourceState::error);
  CHECK(st.message == "ethtool GSTATS ens9: No such device");
  CHECK(f.ethtool.calls["stats:ens9"] == 1);
  CHECK(f.ethtool.calls.count("driver:ens9") == 0);
  CHECK(f.ethtool.calls.count("pause:ens9") == 0);
  const NetdevSample& n = netdev(snap, "ens9");
  CHECK(n.ethtool.empty());
  CHECK_FALSE(n.driver.has_value());
  CHECK_FALSE(n.pause.has_value());
}

TEST_CASE("collect_ethtool: driver/pause failures are reported but keep the stats",
          "[ethtool_collector]") {
  EthtoolFixture f;
  f.script_healthy("ens1f0", {{"rx_discards_phy", 3}});
  f.ethtool.driver_script.insert_or_assign(
      "ens1f0", Result<DriverInfo>(errno_error(EIO, "ethtool GDRVINFO ens1f0")));
  f.ethtool.pause_script.insert_or_assign(
      "ens1f0", Result<PauseInfo>(errno_error(EBUSY, "ethtool GPAUSEPARAM ens1f0")));
  Snapshot snap = snapshot_with_netdevs({"ens1f0"});

  collect_ethtool(f.ctx, snap);

  const NetdevSample& n = netdev(snap, "ens1f0");
  CHECK(n.ethtool == CounterMap{{"rx_discards_phy", 3}});
  CHECK_FALSE(n.driver.has_value());
  CHECK_FALSE(n.pause.has_value());
  const SourceStatus& st = status_for(snap, "ens1f0");
  CHECK(st.state == SourceState::error);
  CHECK(st.message ==
        "driver info: ethtool GDRVINFO ens1f0: Input/output error; "
        "pause: ethtool GPAUSEPARAM ens1f0: Device or resource busy");
}

TEST_CASE("collect_ethtool follows a string set that changed between ticks",
          "[ethtool_collector]") {
  // PFC enabled on priority 3 between the two ticks: the set grows by the prio-3 counters.
  EthtoolFixture f;
  f.script_healthy("ens1f0", {});
  f.ethtool.stats_script["ens1f0"] = {
      CounterMap{{"rx_pause_ctrl_phy", 1}, {"tx_pause_ctrl_phy", 2}},
      CounterMap{{"rx_pause_ctrl_phy", 1}, {"rx_prio3_pause", 9}, {"tx_pause_ctrl_phy", 2}}};

  Snapshot first = snapshot_with_netdevs({"ens1f0"});
  collect_ethtool(f.ctx, first);
  Snapshot second = snapshot_with_netdevs({"ens1f0"});
  collect_ethtool(f.ctx, second);

  CHECK(netdev(first, "ens1f0").ethtool.count("rx_prio3_pause") == 0);
  CHECK(netdev(second, "ens1f0").ethtool ==
        CounterMap{{"rx_pause_ctrl_phy", 1}, {"rx_prio3_pause", 9}, {"tx_pause_ctrl_phy", 2}});
  CHECK(status_for(second, "ens1f0").state == SourceState::ok);
}

TEST_CASE("collect_ethtool adds port netdevs that have no sample, keeping names sorted",
          "[ethtool_collector]") {
  EthtoolFixture f;
  f.script_healthy("eth2", {{"a", 1}});
  f.script_healthy("eth1", {{"b", 2}});
  f.script_healthy("eth0", {{"c", 3}});
  Snapshot snap = snapshot_with_netdevs({"eth1"});
  DeviceSample dev;
  dev.name = "mlx5_0";
  PortSample p1, p2, p3, p4;
  p1.port = 1;
  p1.netdev = "eth2";
  p2.port = 2;
  p2.netdev = "eth1";  // already sampled: must not be duplicated
  p3.port = 3;         // no netdev: nothing to read
  p4.port = 4;
  p4.netdev = "eth0";
  dev.ports = {p1, p2, p3, p4};
  snap.devices.push_back(dev);

  collect_ethtool(f.ctx, snap);

  REQUIRE(snap.netdevs.size() == 3);
  CHECK(snap.netdevs[0].name == "eth0");
  CHECK(snap.netdevs[1].name == "eth1");
  CHECK(snap.netdevs[2].name == "eth2");
  CHECK(snap.netdevs[1].mtu == 1500u);  // the existing sample was filled, not replaced
  CHECK(snap.netdevs[0].ethtool == CounterMap{{"c", 3}});
  CHECK(snap.netdevs[2].ethtool == CounterMap{{"a", 1}});
  CHECK(snap.sources.size() == 3);
  CHECK(f.ethtool.calls["stats:eth1"] == 1);
}

}  // namespace rdmatop
