// collect_devlink and collect_dcb with scripted sources: devlink instances matched to RDMA
// devices by PCI address, reporters attached to their instance, and the status each outcome
// (ok, no family, no instance, EPERM, EOPNOTSUPP, other errors) turns into.
#include <catch2/catch.hpp>

#include <cerrno>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "collector/collect.h"
#include "tests/support/fake_file_source.h"
#include "tests/support/unsupported_ethtool_source.h"

namespace rdmatop {
namespace {

class ScriptedDevlink final : public DevlinkSource {
 public:
  Result<std::vector<DevlinkInfo>> info() override { return info_; }
  Result<std::vector<DevlinkReporterEntry>> health() override { return health_; }
  Result<std::vector<DevlinkInfo>> info_ = std::vector<DevlinkInfo>{};
  Result<std::vector<DevlinkReporterEntry>> health_ = std::vector<DevlinkReporterEntry>{};
};

class ScriptedDcb final : public DcbSource {
 public:
  Result<DcbInfo> ieee(const std::string& ifname) override {
    const auto it = replies.find(ifname);
    if (it == replies.end()) return Error{ENODEV, "no " + ifname};
    return it->second;
  }
  std::map<std::string, Result<DcbInfo>> replies;
};

Snapshot two_devices() {
  Snapshot snap;
  DeviceSample mlx;
  mlx.name = "mlx5_0";
  mlx.pci_address = "0000:3b:00.0";
  DeviceSample rxe;
  rxe.name = "rxe0";
  snap.devices = {mlx, rxe};
  NetdevSample a;
  a.name = "ens1f0np0";
  NetdevSample b;
  b.name = "eth0";
  snap.netdevs = {a, b};
  return snap;
}

DevlinkInfo instance(const std::string& bus, const std::string& dev) {
  DevlinkInfo d;
  d.bus_name = bus;
  d.dev_name = dev;
  d.driver = "mlx5_core";
  d.running["fw.version"] = "16.35.2000";
  d.stored["fw.version"] = "16.35.3006";
  return d;
}

DevlinkReporterEntry reporter(const std::string& dev, const std::string& name) {
  DevlinkReporterEntry e;
  e.bus_name = "pci";
  e.dev_name = dev;
  e.reporter.name = name;
  e.reporter.state = "healthy";
  e.reporter.error_count = 1;
  return e;
}

const SourceStatus* status(const Snapshot& s, const std::string& source,
                           const std::string& target) {
  for (const auto& st : s.sources) {
    if (st.source == source && st.target == target) return &st;
  }
  return nullptr;
}

struct HostConfigFixture {
  testing::FakeFileSource fs;
  testing::UnsupportedEthtoolSource ethtool;
  ScriptedDevlink devlink;
  ScriptedDcb dcb;
  CollectContext ctx() {
    CollectContext c{fs, ethtool, {}};
    c.devlink = &devlink;
    c.dcb = &dcb;
    return c;
  }
};

TEST_CASE("collect_devlink matches instances by PCI address and attaches reporters",
          "[devlink][collector]") {
  HostConfigFixture f;
  f.devlink.info_ =
      std::vector<DevlinkInfo>{instance("pci", "0000:af:00.0"), instance("pci", "0000:3b:00.0")};
  f.devlink.health_ = std::vector<DevlinkReporterEntry>{reporter("0000:3b:00.0", "fw"),
                                                        reporter("0000:af:00.0", "fw"),
                                                        reporter("0000:3b:00.0", "fw_fatal")};
  Snapshot snap = two_devices();
  collect_devlink(f.ctx(), snap);
  REQUIRE(snap.devices[0].devlink);
  const DevlinkInfo& d = *snap.devices[0].devlink;
  CHECK(d.dev_name == "0000:3b:00.0");
  CHECK(d.stored.at("fw.version") == "16.35.3006");
  REQUIRE(d.reporters.size() == 2);
  CHECK(d.reporters[0].name == "fw");
  CHECK(d.reporters[1].name == "fw_fatal");
  CHECK_FALSE(snap.devices[1].devlink);
  REQUIRE(status(snap, "devlink", "") != nullptr);
  CHECK(status(snap, "devlink", "")->state == SourceState::ok);
  CHECK(status(snap, "devlink-health", "")->state == SourceState::ok);
  CHECK(status(snap, "devlink", "mlx5_0")->state == SourceState::ok);
  CHECK(status(snap, "devlink", "rxe0")->state == SourceState::no_data);
}

TEST_CASE("collect_devlink: absent family, EPERM and EOPNOTSUPP are no data; others errors",
          "[devlink][collector]") {
  for (const auto& [code, state] :
       std::vector<std::pair<int, SourceState>>{{ENOENT, SourceState::no_data},
                                                {EPERM, SourceState::no_data},
                                                {EOPNOTSUPP, SourceState::no_data},
                                                {EPROTO, SourceState::error},
                                                {EAGAIN, SourceState::error}}) {
    HostConfigFixture f;
    f.devlink.info_ = Error{code, "x"};
    Snapshot snap = two_devices();
    collect_devlink(f.ctx(), snap);
    CAPTURE(code);
    REQUIRE(status(snap, "devlink", "") != nullptr);
    CHECK(status(snap, "devlink", "")->state == state);
    CHECK(status(snap, "devlink", "mlx5_0") == nullptr);
    CHECK_FALSE(snap.devices[0].devlink);
  }
}

TEST_CASE("collect_devlink keeps the info when the health dump fails", "[devlink][collector]") {
  HostConfigFixture f;
  f.devlink.info_ = std::vector<DevlinkInfo>{instance("pci", "0000:3b:00.0")};
  f.devlink.health_ = Error{EIO, "boom"};
  Snapshot snap = two_devices();
  collect_devlink(f.ctx(), snap);
  REQUIRE(snap.devices[0].devlink);
  CHECK(snap.devices[0].devlink->reporters.empty());
  CHECK(status(snap, "devlink-health", "")->state == SourceState::error);
  CHECK(status(snap, "devlink-health", "")->message == "boom");
}

TEST_CASE("collect_devlink and collect_dcb do nothing without a source", "[devlink][dcb]") {
  testing::FakeFileSource fs;
  testing::UnsupportedEthtoolSource ethtool;
  const CollectContext ctx{fs, ethtool, {}};
  Snapshot snap = two_devices();
  collect_devlink(ctx, snap);
  collect_dcb(ctx, snap);
  CHECK(snap.sources.empty());
}

TEST_CASE("collect_dcb: per netdev, EOPNOTSUPP is no data", "[dcb][collector]") {
  HostConfigFixture f;
  DcbInfo info;
  info.pfc_enabled = 0x08;
  f.dcb.replies.emplace("ens1f0np0", info);
  f.dcb.replies.emplace("eth0", Error{EOPNOTSUPP, "Operation not supported"});
  Snapshot snap = two_devices();
  collect_dcb(f.ctx(), snap);
  REQUIRE(snap.netdevs[0].dcb);
  CHECK(snap.netdevs[0].dcb->pfc_enabled == 0x08);
  CHECK_FALSE(snap.netdevs[1].dcb);
  CHECK(status(snap, "dcb", "ens1f0np0")->state == SourceState::ok);
  CHECK(status(snap, "dcb", "eth0")->state == SourceState::no_data);
  f.dcb.replies.erase("eth0");
  Snapshot again = two_devices();
  collect_dcb(f.ctx(), again);
  CHECK(status(again, "dcb", "eth0")->state == SourceState::error);
}

/// Statistics, driver info and pause all succeed; the tunable answers `tout`.
class TunableEthtool final : public EthtoolSource {
 public:
  explicit TunableEthtool(Result<std::uint16_t> tout) : tout_(std::move(tout)) {}
  Result<CounterMap> stats(const std::string&) override { return CounterMap{{"rx_pause", 1}}; }
  Result<DriverInfo> driver_info(const std::string&) override { return DriverInfo{}; }
  Result<PauseInfo> pause(const std::string&) override { return PauseInfo{}; }
  Result<std::uint16_t> pfc_prevention_tout(const std::string&) override { return tout_; }
  std::string describe() const override { return "tunable"; }

 private:
  Result<std::uint16_t> tout_;
};

TEST_CASE("collect_ethtool: the PFC storm-prevention tunable, absent when unsupported",
          "[ethtool][collector]") {
  struct Case {
    Result<std::uint16_t> tout;
    std::optional<std::uint16_t> expected;
    SourceState state;
  };
  for (const auto& c :
       std::vector<Case>{{std::uint16_t{100}, 100, SourceState::ok},
                         {std::uint16_t{0}, 0, SourceState::ok},
                         {Error{EOPNOTSUPP, "no"}, std::nullopt, SourceState::ok},
                         {Error{EINVAL, "other"}, std::nullopt, SourceState::ok},
                         {Error{EIO, "broken"}, std::nullopt, SourceState::error}}) {
    testing::FakeFileSource fs;
    TunableEthtool ethtool(c.tout);
    const CollectContext ctx{fs, ethtool, {}};
    Snapshot snap = two_devices();
    collect_ethtool(ctx, snap);
    CHECK(snap.netdevs[0].pfc_prevention_tout_ms == c.expected);
    REQUIRE(status(snap, "ethtool", "ens1f0np0") != nullptr);
    CHECK(status(snap, "ethtool", "ens1f0np0")->state == c.state);
  }
}

TEST_CASE("EthtoolSource: the tunable defaults to not supported", "[ethtool]") {
  testing::UnsupportedEthtoolSource ethtool;
  auto r = ethtool.pfc_prevention_tout("eth0");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == EOPNOTSUPP);
}

}  // namespace
}  // namespace rdmatop
