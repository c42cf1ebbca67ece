// The live ethtool source against the running kernel, cross-checked with the ethtool command.
// Everything happens in the private network namespace kernel_main.cpp entered: a veth pair
// (whose ethtool stats are per-queue counters, so the string set can be resized with
// `ethtool -L`), `lo` (no ethtool statistics) and, where the kernel has it, a dummy device.
// Traffic between the veth ends uses TEST-NET addresses that exist only inside the namespace.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "collector/collect.h"
#include "collector/parse/ethtool_text.h"
#include "collector/source/ethtool_genl.h"
#include "collector/source/ethtool_source.h"
#include "collector/source/ethtool_stats_reader.h"
#include "tests/kernel/kernel_support.h"
#include "tests/kernel/veth_pair.h"

namespace rdmatop {
namespace {

using kernel_test::BackgroundTraffic;
using kernel_test::kA;
using kernel_test::kAddrA;
using kernel_test::kAddrB;
using kernel_test::kB;
using kernel_test::kPeerViaA;
using kernel_test::kPeerViaB;
using kernel_test::must_run;
using kernel_test::run;
using kernel_test::UdpSender;
using kernel_test::VethPair;

std::set<std::string> names_of(const CounterMap& m) {
  std::set<std::string> s;
  for (const auto& [k, v] : m) s.insert(k);
  return s;
}

/// Our read and `ethtool -S` agree: same names; each value the command printed lies between
/// our read just before it and our read just after it (counters only grow).
void check_stats_bracket_ethtool(EthtoolSource& source, const std::string& ifname) {
  INFO("interface " << ifname);
  auto before = source.stats(ifname);
  const auto text = run({"ethtool", "-S", ifname});
  auto after = source.stats(ifname);
  REQUIRE(before.ok());
  REQUIRE(after.ok());
  REQUIRE(text.exit_code == 0);
  auto reference = parse_ethtool_stats_text(text.out);
  INFO("ethtool -S output:\n" << text.out);
  REQUIRE(reference.ok());
  REQUIRE_FALSE(reference->empty());
  CHECK(names_of(*before) == names_of(*reference));
  CHECK(names_of(*after) == names_of(*reference));
  for (const auto& [name, value] : *reference) {
    INFO("counter " << name);
    REQUIRE(before->count(name) == 1);
    REQUIRE(after->count(name) == 1);
    CHECK(before->at(name) <= value);
    CHECK(value <= after->at(name));
  }
}

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

/// A dummy device if this kernel has the driver (CONFIG_DUMMY); reported loudly when not.
class OptionalDummy {
 public:
  OptionalDummy() {
    const auto r = run({"ip", "link", "add", name(), "type", "dummy"});
    present_ = r.exit_code == 0;
    if (present_) {
      must_run({"ip", "link", "set", name(), "up"});
    } else {
      std::string why = r.err;
      while (!why.empty() && why.back() == '\n') why.pop_back();
      std::cout << "NOTE: no dummy device on this kernel (" << why
                << "): the dummy checks are skipped; lo covers a device without stats\n";
    }
  }
  OptionalDummy(const OptionalDummy&) = delete;
  OptionalDummy& operator=(const OptionalDummy&) = delete;
  ~OptionalDummy() {
    if (present_) run({"ip", "link", "del", name()});
  }
  bool present() const { return present_; }
  static const char* name() { return "rtd0"; }

 private:
  bool present_ = false;
};

/// Interfaces to compare with the ethtool command: the veth ends, lo, and the dummy if any.
std::vector<std::string> all_test_interfaces(const OptionalDummy& dummy) {
  std::vector<std::string> v{kA, kB, "lo"};
  if (dummy.present()) v.emplace_back(OptionalDummy::name());
  return v;
}

}  // namespace

TEST_CASE("ioctl stats equal `ethtool -S` on a veth pair under traffic", "[kernel][ethtool]") {
  VethPair veth;
  auto source = make_ioctl_ethtool_source();

  auto quiet = source->stats(kB);
  REQUIRE(quiet.ok());
  {
    UdpSender ab(kAddrA, kPeerViaA), ba(kAddrB, kPeerViaB);
    ab.send(50);
    ba.send(50);
  }
  {
    BackgroundTraffic traffic;
    check_stats_bracket_ethtool(*source, kA);
    check_stats_bracket_ethtool(*source, kB);
  }

  auto busy = source->stats(kB);
  REQUIRE(busy.ok());
  std::uint64_t grew = 0;
  for (const auto& [name, value] : *busy) grew += value > quiet->at(name) ? 1 : 0;
  if (veth.napi()) {
    INFO("GRO/NAPI was enabled on the veth, so its per-queue counters should count packets");
    CHECK(grew > 0);
  } else {
    WARN("could not enable GRO on the veth: counters may not move; compared at rest");
  }
}

TEST_CASE("the cached string set follows a channel-count change", "[kernel][ethtool]") {
  VethPair veth;
  auto source = make_ioctl_ethtool_source();
  auto four = source->stats(kA);
  REQUIRE(four.ok());
  CHECK(four->count("rx_queue_3_xdp_packets") == 1);  // veth names per-queue counters

  const auto shrink = run({"ethtool", "-L", kA, "rx", "2", "tx", "2"});
  if (shrink.exit_code != 0) {
    WARN("`ethtool -L` is not supported by this kernel's veth: " << shrink.err);
    return;
  }
  auto two = source->stats(kA);
  REQUIRE(two.ok());
  CHECK(two->size() < four->size());
  CHECK(two->count("rx_queue_3_xdp_packets") == 0);
  auto reference = parse_ethtool_stats_text(must_run({"ethtool", "-S", kA}).out);
  REQUIRE(reference.ok());
  CHECK(names_of(*two) == names_of(*reference));

  must_run({"ethtool", "-L", kA, "rx", "4", "tx", "4"});
  check_stats_bracket_ethtool(*source, kA);
}

TEST_CASE("a reply for a changed string set never overruns the buffer", "[kernel][ethtool]") {
  // Older kernels write the count they have now whatever we asked for: the guard page turns a
  // grown set into EFAULT. Kernels with 7b07be1ff1cb answer any mismatch with an empty reply.
  VethPair veth;
  auto calls = make_ioctl_ethtool_stats_calls();
  auto n = calls->count(kA);
  REQUIRE(n.ok());
  REQUIRE(*n > 1);

  // Buffers sized for one entry fewer than the kernel has: exactly a set that grew by one.
  auto names = calls->names(kA, *n - 1);
  const bool refuses_mismatch = names.ok();
  if (refuses_mismatch) {
    CHECK(names->empty());
  } else {
    CHECK(names.error().code == EFAULT);
  }
  auto values = calls->values(kA, *n - 1);
  if (refuses_mismatch) {
    REQUIRE(values.ok());
    CHECK(values->empty());
  } else {
    REQUIRE_FALSE(values.ok());
    CHECK(values.error().code == EFAULT);
  }

  // Room for more than the kernel has (a set that shrank).
  auto more_names = calls->names(kA, *n + 8);
  REQUIRE(more_names.ok());
  CHECK(more_names->size() == (refuses_mismatch ? 0 : *n));
  auto more_values = calls->values(kA, *n + 8);
  REQUIRE(more_values.ok());
  CHECK(more_values->size() == (refuses_mismatch ? 0 : *n));

  // The exact count always works.
  auto exact = calls->names(kA, *n);
  REQUIRE(exact.ok());
  CHECK(exact->size() == *n);
  std::cout << "NOTE: this kernel " << (refuses_mismatch ? "refuses" : "does not check")
            << " a mismatched GSTRINGS/GSTATS count\n";
}

TEST_CASE("driver_info equals `ethtool -i`", "[kernel][ethtool]") {
  VethPair veth;
  OptionalDummy dummy;
  auto source = make_ioctl_ethtool_source();
  for (const std::string& ifname : all_test_interfaces(dummy)) {
    INFO("interface " << ifname);
    auto ours = source->driver_info(ifname);
    const auto text = run({"ethtool", "-i", ifname});
    if (text.exit_code != 0) {
      // lo has no get_drvinfo: both must say "not supported".
      INFO("ethtool -i stderr: " << text.err);
      REQUIRE_FALSE(ours.ok());
      CHECK(ours.error().code == EOPNOTSUPP);
      CHECK(text.err.find("Operation not supported") != std::string::npos);
      continue;
    }
    REQUIRE(ours.ok());
    auto reference = parse_ethtool_driver_info_text(text.out);
    INFO("ethtool -i output:\n" << text.out);
    REQUIRE(reference.ok());
    CHECK(ours->driver == reference->driver);
    CHECK(ours->version == reference->version);
    CHECK(ours->fw_version == reference->fw_version);
    CHECK(ours->bus_info == reference->bus_info);
  }
  auto veth_info = source->driver_info(kA);
  REQUIRE(veth_info.ok());
  CHECK(veth_info->driver == "veth");
}

TEST_CASE("pause() is handled cleanly whatever the driver supports", "[kernel][ethtool]") {
  VethPair veth;
  OptionalDummy dummy;
  auto source = make_ioctl_ethtool_source();
  for (const std::string& ifname : all_test_interfaces(dummy)) {
    INFO("interface " << ifname);
    auto ours = source->pause(ifname);
    const auto text = run({"ethtool", "-I", "-a", ifname});
    INFO("ethtool -I -a: exit " << text.exit_code << "\n" << text.out << text.err);
    if (text.exit_code == 0) {
      REQUIRE(ours.ok());
      auto reference = parse_ethtool_pause_text(text.out);
      REQUIRE(reference.ok());
      CHECK(ours->autoneg == reference->autoneg);
      CHECK(ours->rx == reference->rx);
      CHECK(ours->tx == reference->tx);
      CHECK(ours->rx_frames.has_value() == reference->rx_frames.has_value());
      CHECK(ours->tx_frames.has_value() == reference->tx_frames.has_value());
    } else {
      REQUIRE_FALSE(ours.ok());
      CHECK(ours.error().code == EOPNOTSUPP);
      CHECK(ours.error().message == "ethtool GPAUSEPARAM " + ifname + ": Operation not supported");
      CHECK(text.err.find("Operation not supported") != std::string::npos);
    }
  }
}

TEST_CASE("the ethtool netlink family answers PAUSE_GET requests", "[kernel][ethtool]") {
  // No device in a namespace has pause statistics (veth/lo lack get_pauseparam), so this checks
  // the transaction itself: the family resolves, the kernel accepts our request and finds the
  // device (EOPNOTSUPP, not EINVAL/ENOENT), and its errors come back with their ack text.
  VethPair veth;
  EthtoolGenl genl;
  const auto text = run({"ethtool", "-I", "-a", kA});
  auto on_veth = genl.pause(kA);
  INFO("ethtool -I -a: exit " << text.exit_code << " " << text.out << text.err);
  if (text.exit_code == 0) {
    CHECK(on_veth.ok());
  } else {
    REQUIRE_FALSE(on_veth.ok());
    CHECK(on_veth.error().code == EOPNOTSUPP);
    CHECK(on_veth.error().message.rfind(std::string("ethtool PAUSE_GET ") + kA + ": ", 0) == 0);
  }

  auto missing = genl.pause("rtgone0");
  REQUIRE_FALSE(missing.ok());
  INFO(missing.error().message);
  CHECK(missing.error().code == ENODEV);
  // The extended ack of net/ethtool/netlink.c ethnl_parse_header_dev_get(), which `ethtool`
  // prints as "netlink error: no device matches name".
  const auto reference = run({"ethtool", "-I", "-a", "rtgone0"});
  if (reference.err.find("no device matches name") != std::string::npos) {
    CHECK(missing.error().message.find("(no device matches name)") != std::string::npos);
  }
}

TEST_CASE("devices without ethtool statistics report EOPNOTSUPP", "[kernel][ethtool]") {
  OptionalDummy dummy;
  auto source = make_ioctl_ethtool_source();
  std::vector<std::string> ifnames{"lo"};
  if (dummy.present()) ifnames.emplace_back(OptionalDummy::name());
  for (const std::string& ifname : ifnames) {
    INFO("interface " << ifname);
    const auto text = run({"ethtool", "-S", ifname});
    auto ours = source->stats(ifname);
    if (text.exit_code == 0) {  // a kernel whose driver grew statistics: compare them instead
      check_stats_bracket_ethtool(*source, ifname);
      continue;
    }
    INFO("ethtool -S: " << text.out << text.err);
    CHECK((text.out + text.err).find("no stats available") != std::string::npos);
    REQUIRE_FALSE(ours.ok());
    CHECK(ours.error().code == EOPNOTSUPP);
  }
}

TEST_CASE("a netdev that does not exist is ENODEV", "[kernel][ethtool]") {
  auto source = make_ioctl_ethtool_source();
  for (const std::string ifname : {"rtgone0", "a-name-longer-than-ifnamsiz"}) {
    INFO("interface " << ifname);
    auto stats = source->stats(ifname);
    REQUIRE_FALSE(stats.ok());
    CHECK(stats.error().code == ENODEV);
    CHECK(stats.error().message.find(ifname + ": No such device") != std::string::npos);
    auto driver = source->driver_info(ifname);
    REQUIRE_FALSE(driver.ok());
    CHECK(driver.error().code == ENODEV);
    auto pause = source->pause(ifname);
    REQUIRE_FALSE(pause.ok());
    CHECK(pause.error().code == ENODEV);
  }
  // ethtool agrees that the device is missing.
  const auto text = run({"ethtool", "-S", "rtgone0"});
  CHECK(text.exit_code != 0);
  CHECK(text.err.find("No such device") != std::string::npos);
}

TEST_CASE("a netdev that vanishes between reads turns into ENODEV", "[kernel][ethtool]") {
  auto source = make_ioctl_ethtool_source();
  {
    VethPair veth;
    REQUIRE(source->stats(kA).ok());  // names cached
  }
  auto gone = source->stats(kA);
  REQUIRE_FALSE(gone.ok());
  CHECK(gone.error().code == ENODEV);
  // A new device under the same name is read afresh, not through the stale cache.
  VethPair again;
  check_stats_bracket_ethtool(*source, kA);
}

TEST_CASE("collect_ethtool end to end on the veth pair", "[kernel][ethtool]") {
  VethPair veth;
  auto source = make_ioctl_ethtool_source();
  NoFiles files;
  const CollectContext ctx{files, *source, {}};

  Snapshot snap;
  NetdevSample b;
  b.name = kB;
  snap.netdevs.push_back(b);  // as the netdev collector would have added it
  DeviceSample dev;
  dev.name = "rxe_test";
  PortSample port;
  port.port = 1;
  port.netdev = kA;  // a port whose netdev has no sample yet
  PortSample port2;
  port2.port = 2;
  port2.netdev = "lo";
  PortSample port3;
  port3.port = 3;
  port3.netdev = "rtgone0";
  dev.ports = {port, port2, port3};
  snap.devices.push_back(dev);

  collect_ethtool(ctx, snap);

  REQUIRE(snap.netdevs.size() == 4);
  CHECK(snap.netdevs[0].name == "lo");
  CHECK(snap.netdevs[1].name == kA);
  CHECK(snap.netdevs[2].name == kB);
  CHECK(snap.netdevs[3].name == "rtgone0");
  std::map<std::string, SourceStatus> status;
  for (const auto& s : snap.sources) {
    CHECK(s.source == "ethtool");
    status[s.target] = s;
  }
  REQUIRE(status.size() == 4);

  for (const NetdevSample* n : {&snap.netdevs[1], &snap.netdevs[2]}) {
    INFO("interface " << n->name);
    CHECK(status[n->name].state == SourceState::ok);
    CHECK(status[n->name].message.empty());
    auto reference = parse_ethtool_stats_text(must_run({"ethtool", "-S", n->name}).out);
    REQUIRE(reference.ok());
    CHECK(names_of(n->ethtool) == names_of(*reference));
    REQUIRE(n->driver.has_value());
    CHECK(n->driver->driver == "veth");
    // veth has no pause support: absent, and not an error.
    CHECK(n->pause.has_value() == source->pause(n->name).ok());
  }
  CHECK(status["lo"].state == SourceState::no_data);
  CHECK(status["lo"].message.find("no ethtool statistics: ") == 0);
  CHECK(status["lo"].message.find("Operation not supported") != std::string::npos);
  CHECK(snap.netdevs[0].ethtool.empty());
  CHECK(status["rtgone0"].state == SourceState::error);
  CHECK(status["rtgone0"].message.find("No such device") != std::string::npos);
}

}  // namespace rdmatop
