// The netlink counter step with the replay double: which source serves each port under
// --counters auto|netlink|sysfs, per-port fallback, optional-counter status, resources, and
// that a port netlink served costs no hw_counters/ reads; the QP counter mode and bound counters
// (collect_qp_counters).
#include <rdma/rdma_netlink.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cerrno>
#include <string>
#include <vector>

#include "collector/collect.h"
#include "collector/parse/nldev_parse.h"
#include "collector/source/rdma_netlink_source.h"
#include "tests/support/fake_file_source.h"
#include "tests/support/nldev_messages.h"
#include "tests/support/unsupported_ethtool_source.h"

namespace rdmatop {
namespace {

using testing::FakeFileSource;
using testing::Reply;
using Op = FakeFileSource::Op;

// Two rxe devices with one port each; sysfs says sent_pkts 3 everywhere, netlink says 50.
FakeFileSource two_rxe_sysfs() {
  FakeFileSource fs;
  for (const std::string dev : {"rxe0", "rxe1"}) {
    const std::string d = "class/infiniband/" + dev + "/";
    const std::string p = d + "ports/1/";
    fs.file(d + "node_type", "1: CA\n")
        .file(p + "state", "4: ACTIVE\n")
        .file(p + "phys_state", "5: LinkUp\n")
        .file(p + "rate", "2.5 Gb/sec (1X SDR)\n")
        .file(p + "link_layer", "Ethernet\n")
        .file(p + "gids/0", "fe80:0000:0000:0000:5054:00ff:fe12:3456\n")
        .file(p + "gid_attrs/types/0", "RoCE v2\n")
        .file(p + "gid_attrs/ndevs/0", "eth0\n")
        .file(p + "hw_counters/sent_pkts", "3\n")
        .file(p + "hw_counters/rcvd_pkts", "4\n")
        .file(p + "hw_counters/lifespan", "12\n");
  }
  return fs;
}

// rxe0 (index 3) answers STAT_GET; rxe1 (index 4) answers EOPNOTSUPP.
NetlinkRecording recording() {
  NetlinkRecording rec;
  rec[build_dev_get_request(0)] =
      Reply()
          .message(RDMA_NLDEV_CMD_GET, 0, testing::device(3, "rxe0", 1, 0x5054))
          .message(RDMA_NLDEV_CMD_GET, 0, testing::device(4, "rxe1", 1, 0x5055))
          .done(0)
          .bytes();
  rec[build_stat_get_request(3, 1, 0)] =
      Reply()
          .message(RDMA_NLDEV_CMD_STAT_GET, 0,
                   testing::hwcounters(3, 1, {{"sent_pkts", 50}, {"rcvd_pkts", 60}}))
          .ack(0)
          .bytes();
  rec[build_stat_get_status_request(3, 1, 0)] =
      Reply()
          .message(
              RDMA_NLDEV_CMD_STAT_GET_STATUS, 0,
              testing::counter_status(
                  3, 1, {{"sent_pkts", 0, -1}, {"rdma_tx_bytes", 1, 0}, {"rdma_rx_bytes", 2, 1}}))
          .ack(0)
          .bytes();
  rec[build_stat_get_request(4, 1, 0)] = Reply().error(0, -EOPNOTSUPP).bytes();
  rec[build_stat_get_status_request(4, 1, 0)] = Reply().error(0, -EOPNOTSUPP).bytes();
  rec[build_res_get_request(0)] =
      Reply()
          .message(RDMA_NLDEV_CMD_RES_GET, 0, testing::resources(3, "rxe0", {{"qp", 2}, {"pd", 1}}))
          .done(0)
          .bytes();
  return rec;
}

Snapshot collect(const FileSource& fs, RdmaNetlinkSource* netlink, CounterSource mode) {
  testing::UnsupportedEthtoolSource ethtool;
  const CollectContext ctx{fs, ethtool, {}, netlink, mode};
  Snapshot snap;
  collect_rdma_sysfs(ctx, snap, collect_rdma_netlink(ctx, snap, list_rdma_devices(ctx)));
  return snap;
}

const SourceStatus* status(const Snapshot& snap, const std::string& source,
                           const std::string& target) {
  for (const auto& s : snap.sources) {
    if (s.source == source && s.target == target) return &s;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("counters auto: netlink where it answers, sysfs per port elsewhere", "[netlink]") {
  FakeFileSource fs = two_rxe_sysfs();
  auto netlink = make_replay_rdma_netlink_source(recording());
  const Snapshot snap = collect(fs, netlink.get(), CounterSource::auto_select);
  REQUIRE(snap.devices.size() == 2);

  const PortSample& served = snap.devices[0].ports.at(0);
  CHECK(served.counter_source == "netlink");
  CHECK(served.hw_counters == CounterMap{{"rcvd_pkts", 60}, {"sent_pkts", 50}});
  CHECK(served.hw_counters_lifespan_ms == 12u);
  CHECK(served.optional_counters == std::map<std::string, bool, std::less<>>{
                                        {"rdma_rx_bytes", true}, {"rdma_tx_bytes", false}});
  // The point of netlink: the served port's hw_counters/ was neither listed nor read, except
  // for the cache lifetime.
  CHECK(fs.count(Op::list, "class/infiniband/rxe0/ports/1/hw_counters") == 0);
  CHECK(fs.count(Op::read, "class/infiniband/rxe0/ports/1/hw_counters") == 1);

  const PortSample& fallback = snap.devices[1].ports.at(0);
  CHECK(fallback.counter_source == "sysfs");
  CHECK(fallback.hw_counters == CounterMap{{"rcvd_pkts", 4}, {"sent_pkts", 3}});
  CHECK(fallback.optional_counters.empty());

  CHECK(snap.devices[0].resources == CounterMap{{"pd", 1}, {"qp", 2}});
  CHECK(snap.devices[1].resources.empty());

  const SourceStatus* ok = status(snap, "netlink", "rxe0/1");
  REQUIRE(ok != nullptr);
  CHECK(ok->state == SourceState::ok);
  CHECK(ok->message ==
        "optional counters off: rdma_tx_bytes (enable with `rdma statistic set link rxe0/1 "
        "optional-counters rdma_tx_bytes,rdma_rx_bytes`)");
  const SourceStatus* fell_back = status(snap, "netlink", "rxe1/1");
  REQUIRE(fell_back != nullptr);
  CHECK(fell_back->state == SourceState::no_data);
  CHECK(fell_back->message ==
        "RDMA_NLDEV_CMD_STAT_GET: Operation not supported; hw counters from sysfs");
  REQUIRE(status(snap, "netlink", "") != nullptr);
  CHECK(status(snap, "netlink", "")->state == SourceState::ok);
  REQUIRE(status(snap, "netlink-resources", "") != nullptr);
  CHECK(status(snap, "netlink-resources", "")->state == SourceState::ok);
  CHECK(status(snap, "sysfs", "rxe1/1")->state == SourceState::ok);
}

TEST_CASE("netlink and sysfs give the same series for the same values", "[netlink]") {
  // Same raw names -> same normalizer: a port served by either source yields the same map.
  FakeFileSource fs = two_rxe_sysfs();
  NetlinkRecording rec = recording();
  rec[build_stat_get_request(3, 1, 0)] =
      Reply()
          .message(RDMA_NLDEV_CMD_STAT_GET, 0,
                   testing::hwcounters(3, 1, {{"sent_pkts", 3}, {"rcvd_pkts", 4}}))
          .ack(0)
          .bytes();
  auto netlink = make_replay_rdma_netlink_source(rec);
  const Snapshot by_netlink = collect(fs, netlink.get(), CounterSource::auto_select);
  const Snapshot by_sysfs = collect(fs, nullptr, CounterSource::sysfs);
  CHECK(by_netlink.devices[0].ports[0].counter_source == "netlink");
  CHECK(by_sysfs.devices[0].ports[0].counter_source == "sysfs");
  CHECK(by_netlink.devices[0].ports[0].hw_counters == by_sysfs.devices[0].ports[0].hw_counters);
}

TEST_CASE("counters netlink: a port netlink cannot serve has no hw counters", "[netlink]") {
  FakeFileSource fs = two_rxe_sysfs();
  auto netlink = make_replay_rdma_netlink_source(recording());
  const Snapshot snap = collect(fs, netlink.get(), CounterSource::netlink);
  CHECK(snap.devices[0].ports[0].counter_source == "netlink");
  const PortSample& unserved = snap.devices[1].ports[0];
  CHECK(unserved.counter_source.empty());
  CHECK(unserved.hw_counters.empty());
  CHECK(fs.count(Op::list, "class/infiniband/rxe1/ports/1/hw_counters") == 0);
  REQUIRE(status(snap, "netlink", "rxe1/1") != nullptr);
  CHECK(status(snap, "netlink", "rxe1/1")->state == SourceState::error);
  CHECK(status(snap, "netlink", "rxe1/1")->message ==
        "RDMA_NLDEV_CMD_STAT_GET: Operation not supported");
}

TEST_CASE("counters sysfs never asks netlink", "[netlink]") {
  FakeFileSource fs = two_rxe_sysfs();
  auto netlink = make_replay_rdma_netlink_source({});  // any request would fail
  const Snapshot snap = collect(fs, netlink.get(), CounterSource::sysfs);
  for (const auto& dev : snap.devices) {
    CHECK(dev.ports[0].counter_source == "sysfs");
    CHECK(dev.ports[0].hw_counters.size() == 2);
  }
  for (const auto& s : snap.sources) CHECK(s.source.rfind("netlink", 0) != 0);
}

TEST_CASE("without a live netlink source, auto is sysfs and netlink is an error", "[netlink]") {
  FakeFileSource fs = two_rxe_sysfs();
  SECTION("auto") {
    const Snapshot snap = collect(fs, nullptr, CounterSource::auto_select);
    CHECK(snap.devices[0].ports[0].counter_source == "sysfs");
    CHECK(status(snap, "netlink", "") == nullptr);
  }
  SECTION("netlink") {
    const Snapshot snap = collect(fs, nullptr, CounterSource::netlink);
    CHECK(snap.devices[0].ports[0].hw_counters.empty());
    REQUIRE(status(snap, "netlink", "") != nullptr);
    CHECK(status(snap, "netlink", "")->state == SourceState::error);
  }
}

TEST_CASE("a failing device dump makes auto fall back whole", "[netlink]") {
  FakeFileSource fs = two_rxe_sysfs();
  NetlinkRecording rec;
  rec[build_dev_get_request(0)] = Reply().error(0, -EPERM).bytes();
  auto netlink = make_replay_rdma_netlink_source(rec);
  const Snapshot snap = collect(fs, netlink.get(), CounterSource::auto_select);
  for (const auto& dev : snap.devices) CHECK(dev.ports[0].counter_source == "sysfs");
  REQUIRE(status(snap, "netlink", "") != nullptr);
  CHECK(status(snap, "netlink", "")->state == SourceState::no_data);
  CHECK(status(snap, "netlink", "")->message == "RDMA_NLDEV_CMD_GET: Operation not permitted");
}

TEST_CASE("the replay source answers only recorded requests", "[netlink]") {
  auto netlink = make_replay_rdma_netlink_source(recording());
  auto devices = netlink->devices();
  REQUIRE(devices.ok());
  CHECK(devices->size() == 2);
  // Sequence numbers advance per request; the replay restamps them, so a second call works.
  CHECK(netlink->devices().ok());
  auto unknown = netlink->ports(3);
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().code == ENODATA);
}

}  // namespace rdmatop

namespace rdmatop {

TEST_CASE("QP counters land on their port, the owner named from this tick's processes",
          "[netlink][qp_counters]") {
  FakeFileSource fs = two_rxe_sysfs();
  NetlinkRecording rec = recording();
  rec[build_qp_counter_mode_request(3, 1, 0)] =
      Reply()
          .message(RDMA_NLDEV_CMD_STAT_GET, 0,
                   testing::qp_counter_mode(3, 1, RDMA_COUNTER_MODE_AUTO, RDMA_COUNTER_MASK_PID))
          .ack(0)
          .bytes();
  // Listed out of id order, with an entry of another port the kernel would not send.
  rec[build_bound_counters_request(3, 1, 0)] =
      Reply()
          .message(RDMA_NLDEV_CMD_STAT_GET, 0,
                   testing::bound_counters(
                       3, "rxe0",
                       {{1, 8, RDMA_COUNTER_MODE_AUTO, -1, 900, "", {20}, {{"sent_pkts", 1}}},
                        {2, 7, RDMA_COUNTER_MODE_AUTO, -1, 812, "", {30}, {}},
                        {1, 3, RDMA_COUNTER_MODE_AUTO, -1, 812, "", {17, 18}, {{"sent_pkts", 9}}}}))
          .done(0)
          .bytes();
  // rxe1: a kernel that rejects the request; the rest of the snapshot is untouched.
  rec[build_qp_counter_mode_request(4, 1, 0)] = Reply().error(0, -EOPNOTSUPP).bytes();
  auto netlink = make_replay_rdma_netlink_source(rec);
  testing::UnsupportedEthtoolSource ethtool;
  const CollectContext ctx{fs, ethtool, {}, netlink.get(), CounterSource::auto_select};
  Snapshot snap;
  collect_rdma_sysfs(ctx, snap, collect_rdma_netlink(ctx, snap, list_rdma_devices(ctx)));
  RdmaProcess process;
  process.pid = 812;
  process.comm = "ib_write_bw";
  snap.rdma_processes.push_back(process);
  collect_qp_counters(ctx, snap, list_rdma_devices(ctx));

  const PortSample& port = snap.devices[0].ports.at(0);
  REQUIRE(port.qp_counter_mode.has_value());
  CHECK(*port.qp_counter_mode == QpCounterMode{1, 2});
  REQUIRE(port.bound_counters.size() == 2);
  CHECK(port.bound_counters[0] ==
        BoundCounter{3, 1, std::nullopt, 812, "", "ib_write_bw", {17, 18}, {{"sent_pkts", 9}}});
  // A PID without a process this tick (it exited) keeps no name.
  CHECK(port.bound_counters[1].pid == 900u);
  CHECK(port.bound_counters[1].comm.empty());
  // The port's own counters are not touched: the kernel already counts bound QPs in them.
  CHECK(port.hw_counters == CounterMap{{"rcvd_pkts", 60}, {"sent_pkts", 50}});
  REQUIRE(status(snap, "netlink-qp-counters", "rxe0/1") != nullptr);
  CHECK(status(snap, "netlink-qp-counters", "rxe0/1")->state == SourceState::ok);

  const PortSample& other = snap.devices[1].ports.at(0);
  CHECK_FALSE(other.qp_counter_mode.has_value());
  CHECK(other.bound_counters.empty());
  const SourceStatus* rejected = status(snap, "netlink-qp-counters", "rxe1/1");
  REQUIRE(rejected != nullptr);
  CHECK(rejected->state == SourceState::no_data);
  CHECK(rejected->message ==
        "not supported: RDMA_NLDEV_CMD_STAT_GET (QP counter mode): Operation not supported");
  CHECK(other.hw_counters == CounterMap{{"rcvd_pkts", 4}, {"sent_pkts", 3}});
}

TEST_CASE("QP counters: an owner the kernel names by thread is its process",
          "[netlink][qp_counters]") {
  FakeFileSource fs = two_rxe_sysfs();
  NetlinkRecording rec = recording();
  rec[build_qp_counter_mode_request(3, 1, 0)] =
      Reply()
          .message(RDMA_NLDEV_CMD_STAT_GET, 0,
                   testing::qp_counter_mode(3, 1, RDMA_COUNTER_MODE_AUTO, RDMA_COUNTER_MASK_PID))
          .ack(0)
          .bytes();
  // Auto mode by PID: the counter's PID is that of the thread that created the QP (813).
  rec[build_bound_counters_request(3, 1, 0)] =
      Reply()
          .message(RDMA_NLDEV_CMD_STAT_GET, 0,
                   testing::bound_counters(3, "rxe0",
                                           {{1, 3, RDMA_COUNTER_MODE_AUTO, -1, 813, "", {17}, {}}}))
          .done(0)
          .bytes();
  rec[build_qp_counter_mode_request(4, 1, 0)] = Reply().error(0, -EOPNOTSUPP).bytes();
  auto netlink = make_replay_rdma_netlink_source(rec);
  testing::UnsupportedEthtoolSource ethtool;
  const CollectContext ctx{fs, ethtool, {}, netlink.get(), CounterSource::auto_select};
  Snapshot snap;
  collect_rdma_sysfs(ctx, snap, collect_rdma_netlink(ctx, snap, list_rdma_devices(ctx)));
  RdmaProcess process;  // as collect_rdma_processes leaves it: thread 813 folded into 812
  process.pid = 812;
  process.comm = "ib_write_bw";
  snap.rdma_processes.push_back(process);
  collect_qp_counters(ctx, snap, list_rdma_devices(ctx), ThreadProcesses{{813, 812}});

  const PortSample& port = snap.devices[0].ports.at(0);
  REQUIRE(port.bound_counters.size() == 1);
  CHECK(port.bound_counters[0].pid == 812u);
  CHECK(port.bound_counters[0].comm == "ib_write_bw");
}

TEST_CASE("QP counters: a failing dump is an error of that port only; no netlink, no reads",
          "[netlink][qp_counters]") {
  FakeFileSource fs = two_rxe_sysfs();
  NetlinkRecording rec = recording();
  for (const std::uint32_t dev : {3U, 4U}) {
    rec[build_qp_counter_mode_request(dev, 1, 0)] =
        Reply()
            .message(RDMA_NLDEV_CMD_STAT_GET, 0, testing::qp_counter_mode(dev, 1, 0, -1))
            .ack(0)
            .bytes();
  }
  rec[build_bound_counters_request(3, 1, 0)] = Reply().error(0, -EPERM).bytes();
  rec[build_bound_counters_request(4, 1, 0)] = Reply().done(0).bytes();
  auto netlink = make_replay_rdma_netlink_source(rec);
  testing::UnsupportedEthtoolSource ethtool;
  const CollectContext ctx{fs, ethtool, {}, netlink.get(), CounterSource::sysfs};
  Snapshot snap;
  collect_rdma_sysfs(ctx, snap);
  collect_qp_counters(ctx, snap, list_rdma_devices(ctx));
  const SourceStatus* failed = status(snap, "netlink-qp-counters", "rxe0/1");
  REQUIRE(failed != nullptr);
  CHECK(failed->state == SourceState::error);
  CHECK(failed->message == "RDMA_NLDEV_CMD_STAT_GET (bound counters): Operation not permitted");
  REQUIRE(status(snap, "netlink-qp-counters", "rxe1/1") != nullptr);
  CHECK(status(snap, "netlink-qp-counters", "rxe1/1")->state == SourceState::ok);
  REQUIRE(snap.devices[1].ports[0].qp_counter_mode.has_value());
  CHECK(*snap.devices[1].ports[0].qp_counter_mode == QpCounterMode{0, 0});
  CHECK(snap.devices[1].ports[0].bound_counters.empty());

  const CollectContext offline{fs, ethtool, {}, nullptr, CounterSource::sysfs};
  Snapshot none;
  collect_rdma_sysfs(offline, none);
  const auto before = none.sources.size();
  collect_qp_counters(offline, none, list_rdma_devices(offline));
  CHECK(none.sources.size() == before);
  CHECK_FALSE(none.devices[0].ports[0].qp_counter_mode.has_value());
}

namespace {

/// Forwards to a replay source and counts the device dumps.
class CountingSource final : public RdmaNetlinkSource {
 public:
  explicit CountingSource(RdmaNetlinkSource& inner) : inner_(inner) {}
  int device_dumps = 0;
  Result<std::vector<NldevDevice>> devices() override {
    ++device_dumps;
    return inner_.devices();
  }
  Result<std::vector<NldevPort>> ports(std::uint32_t dev) override { return inner_.ports(dev); }
  Result<CounterMap> port_counters(std::uint32_t dev, std::uint32_t port) override {
    return inner_.port_counters(dev, port);
  }
  Result<std::vector<NldevCounterStatus>> counter_status(std::uint32_t dev,
                                                         std::uint32_t port) override {
    return inner_.counter_status(dev, port);
  }
  Result<std::vector<NldevResources>> resources() override { return inner_.resources(); }
  Result<std::vector<NldevResOwner>> resource_owners(NldevResKind kind,
                                                     std::uint32_t dev) override {
    return inner_.resource_owners(kind, dev);
  }
  Result<NldevQpCounterMode> qp_counter_mode(std::uint32_t dev, std::uint32_t port) override {
    return inner_.qp_counter_mode(dev, port);
  }
  Result<std::vector<NldevBoundCounter>> bound_counters(std::uint32_t dev,
                                                        std::uint32_t port) override {
    return inner_.bound_counters(dev, port);
  }

 private:
  RdmaNetlinkSource& inner_;
};

}  // namespace

TEST_CASE("one snapshot lists the RDMA devices once, for every netlink collector", "[netlink]") {
  FakeFileSource fs = two_rxe_sysfs();
  auto replay = make_replay_rdma_netlink_source(recording());
  CountingSource netlink(*replay);
  testing::UnsupportedEthtoolSource ethtool;
  const CollectContext ctx{fs, ethtool, {}, &netlink, CounterSource::auto_select};
  const Snapshot snap = collect_snapshot(ctx, 1);
  CHECK(netlink.device_dumps == 1);
  // The shared list reached all three: counters, processes and QP counters each reported.
  CHECK(status(snap, "netlink", "rxe0/1") != nullptr);
  CHECK(status(snap, "netlink-qp-counters", "rxe0/1") != nullptr);
  CHECK(std::any_of(snap.sources.begin(), snap.sources.end(),
                    [](const SourceStatus& s) { return s.source == "rdma-processes"; }));
}

}  // namespace rdmatop
