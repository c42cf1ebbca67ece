// devlink, dcbnl and the PFC storm-prevention tunable against the real kernel, in the test's
// private network namespace with a veth pair: the "not supported / no data" paths must come
// back as clean statuses (this is what every host without DCB-capable NICs sees).
#include <catch2/catch.hpp>

#include <cerrno>
#include <string>

#include "collector/collect.h"
#include "collector/source/dcbnl_source.h"
#include "collector/source/devlink_source.h"
#include "collector/source/ethtool_source.h"
#include "collector/source/file_source.h"
#include "tests/kernel/kernel_support.h"

namespace rdmatop {
namespace {

using kernel_test::must_run;
using kernel_test::run;

/// A veth pair that exists for the test case's lifetime.
struct Veth {
  Veth() {
    must_run({"ip", "link", "add", "hcveth0", "type", "veth", "peer", "name", "hcveth1"});
    must_run({"ip", "link", "set", "hcveth0", "up"});
  }
  ~Veth() { run({"ip", "link", "del", "hcveth0"}); }
  Veth(const Veth&) = delete;
  Veth& operator=(const Veth&) = delete;
};

const SourceStatus* status(const Snapshot& s, const std::string& source,
                           const std::string& target) {
  for (const auto& st : s.sources) {
    if (st.source == source && st.target == target) return &st;
  }
  return nullptr;
}

TEST_CASE("devlink: no family or no instance in this namespace, never an error",
          "[kernel][devlink]") {
  auto source = make_live_devlink_source();
  auto info = source->info();
  const auto tool = run({"devlink", "-j", "dev"});
  INFO("devlink -j dev: exit " << tool.exit_code << " " << tool.out << tool.err);
  if (info.ok()) {
    // The family exists; a fresh namespace holds no instance (they live in init_net).
    CHECK(info->empty());
    auto health = source->health();
    REQUIRE(health.ok());
    CHECK(health->empty());
    if (tool.exit_code == 0) CHECK(tool.out.find("\"dev\":{}") != std::string::npos);
  } else {
    // This host's kernel: CONFIG_NET_DEVLINK=n, the genl controller answers ENOENT.
    CHECK(info.error().code == ENOENT);
    CHECK(info.error().message.find("devlink") != std::string::npos);
    if (kernel_test::find_tool("devlink")) CHECK(tool.exit_code != 0);
  }
  Snapshot snap;
  DeviceSample dev;
  dev.name = "rxe0";
  snap.devices.push_back(dev);
  auto files = make_directory_file_source("/nonexistent");
  auto ethtool = make_ioctl_ethtool_source();
  CollectContext ctx{*files, *ethtool, {}};
  ctx.devlink = source.get();
  collect_devlink(ctx, snap);
  REQUIRE(status(snap, "devlink", "") != nullptr);
  CHECK(status(snap, "devlink", "")->state != SourceState::error);
  CHECK_FALSE(snap.devices[0].devlink);
}

TEST_CASE("dcbnl: a veth has no DCB support (EOPNOTSUPP), a missing netdev is an error",
          "[kernel][dcb]") {
  Veth veth;
  auto source = make_live_dcb_source();
  auto dcb = source->ieee("hcveth0");
  REQUIRE_FALSE(dcb.ok());
  CHECK(dcb.error().code == EOPNOTSUPP);
  auto lo = source->ieee("lo");
  REQUIRE_FALSE(lo.ok());
  CHECK(lo.error().code == EOPNOTSUPP);
  auto missing = source->ieee("hcnosuchdev");
  REQUIRE_FALSE(missing.ok());
  // ENODEV on current kernels (dcb_doit); EINVAL on old ones.
  CHECK((missing.error().code == ENODEV || missing.error().code == EINVAL));
  if (kernel_test::find_tool("dcb")) {
    const auto tool = run({"dcb", "pfc", "show", "dev", "hcveth0"});
    INFO("dcb pfc show: " << tool.out << tool.err);
    CHECK(tool.exit_code != 0);
  }

  Snapshot snap;
  NetdevSample nd;
  nd.name = "hcveth0";
  snap.netdevs.push_back(nd);
  auto files = make_directory_file_source("/nonexistent");
  auto ethtool = make_ioctl_ethtool_source();
  CollectContext ctx{*files, *ethtool, {}};
  ctx.dcb = source.get();
  collect_dcb(ctx, snap);
  REQUIRE(status(snap, "dcb", "hcveth0") != nullptr);
  CHECK(status(snap, "dcb", "hcveth0")->state == SourceState::no_data);
  CHECK_FALSE(snap.netdevs[0].dcb);
}

TEST_CASE("the pfc-prevention-tout tunable on a device without it", "[kernel][ethtool]") {
  Veth veth;
  auto source = make_ioctl_ethtool_source();
  for (const std::string ifname : {"hcveth0", "lo"}) {
    INFO(ifname);
    auto tout = source->pfc_prevention_tout(ifname);
    REQUIRE_FALSE(tout.ok());
    CHECK(tout.error().code == EOPNOTSUPP);
    const auto tool = run({"ethtool", "--get-tunable", ifname, "pfc-prevention-tout"});
    INFO("ethtool --get-tunable: " << tool.out << tool.err);
    CHECK(tool.exit_code != 0);
  }
  auto missing = source->pfc_prevention_tout("hcnosuchdev");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == ENODEV);
  // The collector keeps the field absent and the status clean.
  Snapshot snap;
  NetdevSample nd;
  nd.name = "hcveth0";
  snap.netdevs.push_back(nd);
  auto files = make_directory_file_source("/nonexistent");
  const CollectContext ctx{*files, *source, {}};
  collect_ethtool(ctx, snap);
  CHECK_FALSE(snap.netdevs[0].pfc_prevention_tout_ms);
  REQUIRE(status(snap, "ethtool", "hcveth0") != nullptr);
  CHECK(status(snap, "ethtool", "hcveth0")->state != SourceState::error);
}

}  // namespace
}  // namespace rdmatop
