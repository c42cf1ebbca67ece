#include <catch2/catch.hpp>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "collector/collect.h"
#include "collector/parse/sysfs_parse.h"
#include "tests/support/fake_file_source.h"
#include "tests/support/source_status_of.h"
#include "tests/support/unsupported_ethtool_source.h"

namespace rdmatop {
namespace {

using testing::FakeFileSource;
using Op = FakeFileSource::Op;

constexpr const char* zero_gid = "0000:0000:0000:0000:0000:0000:0000:0000\n";

struct Gid {
  unsigned index;
  std::string gid;
  std::string type;
  std::string ndev;
};

// A RoCE port the way the core prints it: state files, a GID table of `table_size` slots of
// which `gids` are populated, and optional counters.
void add_port(FakeFileSource& fs, const std::string& dev, unsigned port, unsigned table_size,
              const std::vector<Gid>& gids) {
  const std::string p = "class/infiniband/" + dev + "/ports/" + std::to_string(port) + "/";
  fs.file(p + "state", "4: ACTIVE\n")
      .file(p + "phys_state", "5: LinkUp\n")
      .file(p + "rate", "100 Gb/sec (4X EDR)\n")
      .file(p + "link_layer", "Ethernet\n");
  for (unsigned i = 0; i < table_size; ++i) fs.file(p + "gids/" + std::to_string(i), zero_gid);
  for (const auto& g : gids) {
    const std::string i = std::to_string(g.index);
    fs.file(p + "gids/" + i, g.gid + "\n")
        .file(p + "gid_attrs/types/" + i, g.type + "\n")
        .file(p + "gid_attrs/ndevs/" + i, g.ndev + "\n");
  }
}

// mlx5_0: ConnectX-5 on 0000:3b:00.0, one RoCE port with the usual v1/v2 GID pairs.
void add_mlx5(FakeFileSource& fs, const std::string& dev = "mlx5_0",
              const std::string& pci = "0000:3b:00.0", const std::string& ndev = "ens1f0np0") {
  const std::string d = "class/infiniband/" + dev + "/";
  fs.file(d + "node_type", "1: CA\n")
      .file(d + "fw_ver", "16.35.2000\n")
      .file(d + "node_guid", "b859:9f03:00a1:b2c4\n")
      .file(d + "sys_image_guid", "b859:9f03:00a1:b2c4\n")
      .file(d + "hca_type", "MT4119\n")
      .file(d + "board_id", "MT_0000000012\n")
      .file(d + "hw_rev", "0\n")
      .link(d + "device", "../../../" + pci)
      .link(d + "device/driver", "../../../../bus/pci/drivers/mlx5_core")
      .dir(d + "device/net/" + ndev)
      .file(d + "hw_counters/lifespan", "10\n")
      .file(d + "hw_counters/rx_write_requests", "77\n");
  add_port(fs, dev, 1, 255,
           {{0, "fe80:0000:0000:0000:ba59:9fff:fea1:b2c4", "IB/RoCE v1", ndev},
            {1, "fe80:0000:0000:0000:ba59:9fff:fea1:b2c4", "RoCE v2", ndev},
            {2, "0000:0000:0000:0000:0000:ffff:c0a8:6401", "IB/RoCE v1", ndev},
            {3, "0000:0000:0000:0000:0000:ffff:c0a8:6401", "RoCE v2", ndev}});
  const std::string p = d + "ports/1/";
  fs.file(p + "counters/port_rcv_data", "2500000000\n")
      .file(p + "counters/port_xmit_data", "1250000000\n")
      .file(p + "counters/symbol_error", "0\n")
      .file(p + "counters/port_xmit_wait", "12\n")
      .file(p + "hw_counters/out_of_buffer", "5\n")
      .file(p + "hw_counters/np_cnp_sent", "1000\n")
      .file(p + "hw_counters/rp_cnp_handled", "900\n")
      .file(p + "hw_counters/lifespan", "10\n");
}

// rxe0 on eth0: virtual (no `device`), fw_ver "\n", RoCE v2 only, a 1024-slot GID table with
// two populated entries, hw_counters but no counters/ (no PMA).
void add_rxe(FakeFileSource& fs) {
  const std::string d = "class/infiniband/rxe0/";
  fs.file(d + "node_type", "1: CA\n")
      .file(d + "fw_ver", "\n")
      .file(d + "node_guid", "5054:00ff:fe12:3456\n")
      .file(d + "sys_image_guid", "5054:00ff:fe12:3456\n");
  add_port(fs, "rxe0", 1, 1024,
           {{0, "fe80:0000:0000:0000:5054:00ff:fe12:3456", "RoCE v2", "eth0"},
            {1, "0000:0000:0000:0000:0000:ffff:0a0b:0c01", "RoCE v2", "eth0"}});
  fs.file(d + "ports/1/rate", "2.5 Gb/sec (1X SDR)\n");
  for (const char* name : {"sent_pkts", "rcvd_pkts", "duplicate_request", "retry_exceeded_err"}) {
    fs.file(d + "ports/1/hw_counters/" + name, "3\n");
  }
  fs.file(d + "ports/1/hw_counters/lifespan", "12\n");
}

Snapshot collect(const FileSource& fs, DeviceFilter filter = {}) {
  testing::UnsupportedEthtoolSource ethtool;
  const CollectContext ctx{fs, ethtool, std::move(filter)};
  Snapshot snap;
  collect_rdma_sysfs(ctx, snap);
  return snap;
}

TEST_CASE("rdma sysfs: an mlx5 device is read completely", "[rdma_sysfs]") {
  FakeFileSource fs;
  add_mlx5(fs);
  const Snapshot snap = collect(fs);

  REQUIRE(snap.devices.size() == 1);
  const DeviceSample& d = snap.devices[0];
  CHECK(d.name == "mlx5_0");
  CHECK(d.driver == "mlx5");
  CHECK(d.node_type == "CA");
  CHECK(d.fw_ver == "16.35.2000");
  CHECK(d.node_guid == "b859:9f03:00a1:b2c4");
  CHECK(d.sys_image_guid == "b859:9f03:00a1:b2c4");
  CHECK(d.hca_type == "MT4119");
  CHECK(d.board_id == "MT_0000000012");
  CHECK(d.hw_rev == "0");
  CHECK(d.pci_address == "0000:3b:00.0");
  CHECK(d.hw_counters == CounterMap{{"rx_write_requests", 77}});  // lifespan is not a counter

  REQUIRE(d.ports.size() == 1);
  const PortSample& p = d.ports[0];
  CHECK(p.port == 1);
  CHECK(p.state_id == 4u);
  CHECK(p.state == "ACTIVE");
  CHECK(p.phys_state_id == 5u);
  CHECK(p.phys_state == "LinkUp");
  CHECK(p.rate_text == "100 Gb/sec (4X EDR)");
  CHECK(p.rate_gbps == Approx(100.0));
  CHECK(p.link_layer == "Ethernet");
  CHECK(p.netdev == "ens1f0np0");
  REQUIRE(p.gids.size() == 4);
  CHECK(p.gids[3].index == 3);
  CHECK(p.gids[3].gid == "0000:0000:0000:0000:0000:ffff:c0a8:6401");
  CHECK(p.gids[3].type == "RoCE v2");
  CHECK(p.gids[0].type == "IB/RoCE v1");
  CHECK(p.gids[3].netdev == "ens1f0np0");
  // PMA counters stay raw: port_*_data are octets/4, the normalizer multiplies.
  CHECK(p.counters == CounterMap{{"port_rcv_data", 2500000000},
                                 {"port_xmit_data", 1250000000},
                                 {"port_xmit_wait", 12},
                                 {"symbol_error", 0}});
  CHECK(p.hw_counters ==
        CounterMap{{"np_cnp_sent", 1000}, {"out_of_buffer", 5}, {"rp_cnp_handled", 900}});
  CHECK(p.hw_counters_lifespan_ms == 10u);

  REQUIRE(snap.sources.size() == 2);
  CHECK(snap.sources[0].source == "sysfs");
  CHECK(snap.sources[0].target == "mlx5_0");
  CHECK(snap.sources[0].state == SourceState::ok);
  CHECK(snap.sources[0].message.empty());
  CHECK(snap.sources[1].target == "mlx5_0/1");
  CHECK(snap.sources[1].state == SourceState::ok);
  CHECK(snap.sources[1].message.empty());
}

TEST_CASE("rdma sysfs: an rxe device (virtual, no PMA, big sparse GID table)", "[rdma_sysfs]") {
  FakeFileSource fs;
  add_rxe(fs);
  const Snapshot snap = collect(fs);

  REQUIRE(snap.devices.size() == 1);
  const DeviceSample& d = snap.devices[0];
  CHECK(d.driver == "rxe");  // from the name: no parent device to ask
  CHECK(d.fw_ver.empty());
  CHECK(d.pci_address.empty());
  CHECK(d.hca_type.empty());
  REQUIRE(d.ports.size() == 1);
  const PortSample& p = d.ports[0];
  CHECK(p.rate_gbps == Approx(2.5));
  REQUIRE(p.gids.size() == 2);
  CHECK(p.gids[0].type == "RoCE v2");
  CHECK(p.gids[1].type == "RoCE v2");
  CHECK(p.gids[1].index == 1);
  CHECK(p.netdev == "eth0");
  CHECK(p.counters.empty());
  CHECK(p.hw_counters.size() == 4);
  CHECK(p.hw_counters.count("lifespan") == 0);
  CHECK(p.hw_counters_lifespan_ms == 12u);

  const SourceStatus& ps = test::status_of(snap, "rxe0/1");
  CHECK(ps.state == SourceState::ok);
  CHECK_THAT(ps.message, Catch::Contains("no counters/"));
  CHECK(test::status_of(snap, "rxe0").state == SourceState::ok);

  // The 1024-slot table costs one listing and one read per slot; only the two populated
  // slots touch gid_attrs, and the gid_attrs directories are never listed.
  const std::string port = "class/infiniband/rxe0/ports/1/";
  CHECK(fs.count(Op::list, port + "gids") == 1);
  CHECK(fs.count(Op::read, port + "gids") == 1024);
  CHECK(fs.count(Op::read, port + "gid_attrs") == 4);
  CHECK(fs.count(Op::list, port + "gid_attrs") == 0);
}

TEST_CASE("rdma sysfs: EACCES on a counter is an error, the counter is absent", "[rdma_sysfs]") {
  FakeFileSource fs;
  add_mlx5(fs);
  fs.fail("class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent", EACCES);
  const Snapshot snap = collect(fs);

  REQUIRE(snap.devices.size() == 1);
  const PortSample& p = snap.devices[0].ports.at(0);
  CHECK(p.hw_counters.count("np_cnp_sent") == 0);  // absent, not 0
  CHECK(p.hw_counters.at("out_of_buffer") == 5);   // the others are still there
  const SourceStatus& s = test::status_of(snap, "mlx5_0/1");
  CHECK(s.state == SourceState::error);
  CHECK(s.message == "hw_counters/np_cnp_sent: Permission denied");
  CHECK(test::status_of(snap, "mlx5_0").state == SourceState::ok);
}

TEST_CASE("rdma sysfs: EOPNOTSUPP / EINVAL counters are benign", "[rdma_sysfs]") {
  FakeFileSource fs;
  add_mlx5(fs);
  fs.fail("class/infiniband/mlx5_0/ports/1/counters/port_xmit_wait", EOPNOTSUPP);
  fs.fail("class/infiniband/mlx5_0/ports/1/counters/symbol_error", EINVAL);
  const Snapshot snap = collect(fs);

  const PortSample& p = snap.devices.at(0).ports.at(0);
  CHECK(p.counters.count("port_xmit_wait") == 0);
  CHECK(p.counters.count("symbol_error") == 0);
  CHECK(p.counters.at("port_rcv_data") == 2500000000);
  const SourceStatus& s = test::status_of(snap, "mlx5_0/1");
  CHECK(s.state == SourceState::ok);
  CHECK_THAT(s.message, Catch::Contains("counters/port_xmit_wait: Operation not supported"));
  CHECK_THAT(s.message, Catch::Contains("counters/symbol_error: Invalid argument"));
}

TEST_CASE("rdma sysfs: a GID whose type read fails with EINVAL is skipped", "[rdma_sysfs]") {
  FakeFileSource fs;
  add_mlx5(fs);
  // Slot 2 was deleted between the gids/2 read and the type read (address removed).
  fs.fail("class/infiniband/mlx5_0/ports/1/gid_attrs/types/2", EINVAL);
  const Snapshot snap = collect(fs);

  const PortSample& p = snap.devices.at(0).ports.at(0);
  REQUIRE(p.gids.size() == 3);
  CHECK(p.gids[0].index == 0);
  CHECK(p.gids[1].index == 1);
  CHECK(p.gids[2].index == 3);
  const SourceStatus& s = test::status_of(snap, "mlx5_0/1");
  CHECK(s.state == SourceState::ok);
  CHECK(s.message.empty());
}

TEST_CASE("rdma sysfs: garbage in a counter file is an error with a printable message",
          "[rdma_sysfs]") {
  FakeFileSource fs;
  add_mlx5(fs);
  fs.file("class/infiniband/mlx5_0/ports/1/hw_counters/out_of_buffer", "12\xff\x1b[2J\n");
  const Snapshot snap = collect(fs);

  const PortSample& p = snap.devices.at(0).ports.at(0);
  CHECK(p.hw_counters.count("out_of_buffer") == 0);
  const SourceStatus& s = test::status_of(snap, "mlx5_0/1");
  CHECK(s.state == SourceState::error);
  CHECK_THAT(s.message, Catch::StartsWith("hw_counters/out_of_buffer: "));
  CHECK_THAT(s.message, Catch::Contains("\\xff\\x1b[2J\\n"));
  for (char c : s.message) CHECK((c >= 0x20 && c < 0x7f));
}

TEST_CASE("rdma sysfs: no hw_counters directory is noted, not an error", "[rdma_sysfs]") {
  FakeFileSource fs;
  const std::string d = "class/infiniband/bnxt_re0/";
  fs.file(d + "node_type", "1: CA\n")
      .file(d + "fw_ver", "223.0.161.0\n")
      .link(d + "device", "../../../0000:5e:00.0")
      .link(d + "device/driver", "../../../../bus/pci/drivers/bnxt_en");
  add_port(fs, "bnxt_re0", 1, 16, {});
  fs.file(d + "ports/1/counters/port_rcv_packets", "10\n");
  const Snapshot snap = collect(fs);

  REQUIRE(snap.devices.size() == 1);
  CHECK(snap.devices[0].driver == "bnxt_re");
  CHECK(snap.devices[0].pci_address == "0000:5e:00.0");
  const PortSample& p = snap.devices[0].ports.at(0);
  CHECK(p.hw_counters.empty());
  CHECK_FALSE(p.hw_counters_lifespan_ms.has_value());
  CHECK(p.gids.empty());
  const SourceStatus& s = test::status_of(snap, "bnxt_re0/1");
  CHECK(s.state == SourceState::ok);
  CHECK_THAT(s.message, Catch::Contains("no hw_counters/"));
}

TEST_CASE("rdma sysfs: no class/infiniband is no_data", "[rdma_sysfs]") {
  FakeFileSource fs;
  fs.file("class/net/eth0/mtu", "1500\n");
  const Snapshot snap = collect(fs);
  CHECK(snap.devices.empty());
  REQUIRE(snap.sources.size() == 1);
  CHECK(snap.sources[0].source == "sysfs");
  CHECK(snap.sources[0].target.empty());
  CHECK(snap.sources[0].state == SourceState::no_data);
  CHECK(snap.sources[0].message == "no RDMA devices (class/infiniband absent)");

  FakeFileSource empty;
  empty.dir("class/infiniband");
  const Snapshot snap2 = collect(empty);
  REQUIRE(snap2.sources.size() == 1);
  CHECK(snap2.sources[0].state == SourceState::no_data);

  FakeFileSource denied;
  denied.dir("class/infiniband").fail("class/infiniband", EACCES);
  const Snapshot snap3 = collect(denied);
  REQUIRE(snap3.sources.size() == 1);
  CHECK(snap3.sources[0].state == SourceState::error);
}

TEST_CASE("rdma sysfs: device names come from RDMA netlink's list when it has one",
          "[rdma_sysfs]") {
  // class/infiniband cannot be listed: a live tick must not need it when netlink named the
  // devices (each tick already asks RDMA netlink for them).
  FakeFileSource fs;
  add_mlx5(fs, "mlx5_1", "0000:3b:00.1", "ens1f1np1");
  add_mlx5(fs, "mlx5_0");
  fs.fail("class/infiniband", EACCES);
  testing::UnsupportedEthtoolSource ethtool;
  const CollectContext ctx{fs, ethtool, DeviceFilter{}};
  NldevDevice d1;
  d1.index = 2;
  d1.name = "mlx5_1";
  NldevDevice d0;
  d0.index = 1;
  d0.name = "mlx5_0";
  const RdmaDeviceList named = std::vector<NldevDevice>{d1, d0};

  Snapshot snap;
  collect_rdma_sysfs(ctx, snap, NetlinkData{}, &named);
  REQUIRE(snap.devices.size() == 2);
  CHECK(snap.devices[0].name == "mlx5_0");  // ordered as a listing is
  CHECK(snap.devices[1].name == "mlx5_1");
  CHECK(snap.devices[0].ports.size() == 1);

  // No list (netlink failed) or an empty one: class/infiniband is listed, and its error shows.
  const RdmaDeviceList failed = Error{ENODEV, "no RDMA netlink"};
  const RdmaDeviceList empty = std::vector<NldevDevice>{};
  for (const RdmaDeviceList* devices : {&failed, &empty}) {
    Snapshot listed;
    collect_rdma_sysfs(ctx, listed, NetlinkData{}, devices);
    CHECK(listed.devices.empty());
    REQUIRE(listed.sources.size() == 1);
    CHECK(listed.sources[0].state == SourceState::error);
  }
}

TEST_CASE("rdma sysfs: the device filter is applied", "[rdma_sysfs]") {
  FakeFileSource fs;
  add_mlx5(fs, "mlx5_0");
  add_mlx5(fs, "mlx5_1", "0000:3b:00.1", "ens1f1np1");
  add_rxe(fs);

  const Snapshot only = collect(fs, DeviceFilter{{"mlx5_1"}, {}});
  REQUIRE(only.devices.size() == 1);
  CHECK(only.devices[0].name == "mlx5_1");
  CHECK(only.devices[0].pci_address == "0000:3b:00.1");

  const Snapshot but = collect(fs, DeviceFilter{{}, {"mlx5_0"}});
  REQUIRE(but.devices.size() == 2);
  CHECK(but.devices[0].name == "mlx5_1");
  CHECK(but.devices[1].name == "rxe0");

  const Snapshot none = collect(fs, DeviceFilter{{"mlx9_0"}, {}});
  CHECK(none.devices.empty());
  REQUIRE(none.sources.size() == 1);
  CHECK(none.sources[0].state == SourceState::no_data);
}

TEST_CASE("rdma sysfs: a device vanishing at any point is dropped, others survive",
          "[rdma_sysfs]") {
  const auto build = [] {
    FakeFileSource fs;
    add_mlx5(fs, "mlx5_0");
    add_mlx5(fs, "mlx5_1", "0000:3b:00.1", "ens1f1np1");
    return fs;
  };
  const std::string prefix = "class/infiniband/mlx5_0";
  FakeFileSource reference = build();
  const Snapshot full = collect(reference);
  REQUIRE(full.devices.size() == 2);
  const std::size_t ops = reference.count(Op::read, prefix) + reference.count(Op::list, prefix) +
                          reference.count(Op::read_link, prefix);
  REQUIRE(ops > 260);  // 255 GID slots plus the rest

  // Vanish after each possible number of operations: never a partial device, never a crash.
  for (std::size_t n = 0; n <= ops; ++n) {
    FakeFileSource fs = build();
    fs.vanish_after(prefix, n);
    const Snapshot snap = collect(fs);
    INFO("vanish after " << n << " operations");
    const SourceStatus& dev = test::status_of(snap, "mlx5_0");
    if (n < ops) {
      REQUIRE(snap.devices.size() == 1);
      CHECK(snap.devices[0].name == "mlx5_1");
      CHECK(dev.state == SourceState::error);
      CHECK(dev.message == "device vanished during read");
      for (const auto& s : snap.sources) CHECK(s.target != "mlx5_0/1");
    } else {
      REQUIRE(snap.devices.size() == 2);
      CHECK(dev.state == SourceState::ok);
    }
    // mlx5_1 is unaffected whenever mlx5_0 went away.
    CHECK(snap.devices.back().ports.at(0).hw_counters == full.devices[1].ports[0].hw_counters);
    CHECK(test::status_of(snap, "mlx5_1/1").state == SourceState::ok);
  }
}

TEST_CASE("rdma sysfs: a missing required file is an error when the device is still there",
          "[rdma_sysfs]") {
  FakeFileSource fs;
  add_mlx5(fs);
  fs.fail("class/infiniband/mlx5_0/ports/1/state", ENOENT);
  const Snapshot snap = collect(fs);
  REQUIRE(snap.devices.size() == 1);
  const PortSample& p = snap.devices[0].ports.at(0);
  CHECK_FALSE(p.state_id.has_value());
  CHECK(p.phys_state_id == 5u);
  const SourceStatus& s = test::status_of(snap, "mlx5_0/1");
  CHECK(s.state == SourceState::error);
  CHECK(s.message == "state: No such file or directory");
}

TEST_CASE("rdma sysfs: bad state and rate text", "[rdma_sysfs]") {
  FakeFileSource fs;
  add_mlx5(fs);
  fs.file("class/infiniband/mlx5_0/ports/1/state", "ACTIVE\n");
  fs.fail("class/infiniband/mlx5_0/ports/1/rate", EINVAL);  // unknown width: -EINVAL
  const Snapshot snap = collect(fs);
  const PortSample& p = snap.devices.at(0).ports.at(0);
  CHECK_FALSE(p.state_id.has_value());
  CHECK(p.state.empty());
  CHECK_FALSE(p.rate_gbps.has_value());
  CHECK(p.rate_text.empty());
  const SourceStatus& s = test::status_of(snap, "mlx5_0/1");
  CHECK(s.state == SourceState::error);
  CHECK_THAT(s.message, Catch::Contains("state: not a port state"));
  CHECK_THAT(s.message, Catch::Contains("rate: Invalid argument"));
}

TEST_CASE("rdma sysfs: ports are ordered numerically, bad port names are reported",
          "[rdma_sysfs]") {
  FakeFileSource fs;
  const std::string d = "class/infiniband/mlx5_0/";
  fs.file(d + "node_type", "1: CA\n");
  for (unsigned port : {10u, 2u, 1u}) add_port(fs, "mlx5_0", port, 4, {});
  fs.dir(d + "ports/x");
  const Snapshot snap = collect(fs);
  REQUIRE(snap.devices.size() == 1);
  const auto& ports = snap.devices[0].ports;
  REQUIRE(ports.size() == 3);
  CHECK(ports[0].port == 1);
  CHECK(ports[1].port == 2);
  CHECK(ports[2].port == 10);
  const SourceStatus& s = test::status_of(snap, "mlx5_0");
  CHECK(s.state == SourceState::error);
  CHECK_THAT(s.message, Catch::Contains("ports/x: not a decimal index"));
  // Statuses: the device first, then its ports in order.
  REQUIRE(snap.sources.size() == 4);
  CHECK(snap.sources[1].target == "mlx5_0/1");
  CHECK(snap.sources[3].target == "mlx5_0/10");
}

TEST_CASE("rdma sysfs: driver and PCI address from the parent device", "[rdma_sysfs]") {
  FakeFileSource fs;
  // irdma registered on an auxiliary device under the E810 PCI function.
  const std::string i = "class/infiniband/rocep59s0f0/";
  fs.link("class/infiniband/rocep59s0f0",
          "../../devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/ice.roce.0/infiniband/rocep59s0f0")
      .file(i + "node_type", "1: CA\n")
      .link(i + "device", "../../../ice.roce.0")
      .link(i + "device/driver", "../../../../bus/auxiliary/drivers/irdma");
  add_port(fs, "rocep59s0f0", 1, 8, {});
  // irdma registered on the PCI function itself (upstream): the parent's driver is ice.
  const std::string e = "class/infiniband/irdma1/";
  fs.file(e + "node_type", "1: CA\n")
      .link(e + "device", "../../../0000:5e:00.0")
      .link(e + "device/driver", "../../../../bus/pci/drivers/ice");
  // An unknown driver with an unknown name.
  const std::string u = "class/infiniband/foo0/";
  fs.file(u + "node_type", "1: CA\n")
      .link(u + "device", "../../../0000:af:00.0")
      .link(u + "device/driver", "../../../../bus/pci/drivers/foo_pci");
  const Snapshot snap = collect(fs);

  REQUIRE(snap.devices.size() == 3);
  CHECK(snap.devices[0].name == "foo0");
  CHECK(snap.devices[0].driver.empty());
  CHECK(snap.devices[0].pci_address == "0000:af:00.0");
  CHECK(snap.devices[1].name == "irdma1");
  CHECK(snap.devices[1].driver == "irdma");
  CHECK(snap.devices[1].pci_address == "0000:5e:00.0");
  CHECK(snap.devices[2].name == "rocep59s0f0");
  CHECK(snap.devices[2].driver == "irdma");
  CHECK(snap.devices[2].pci_address == "0000:3b:00.0");
}

TEST_CASE("rdma sysfs: port netdev falls back to device/net for one-port PCI devices",
          "[rdma_sysfs]") {
  FakeFileSource fs;
  const std::string d = "class/infiniband/mlx5_0/";
  fs.file(d + "node_type", "1: CA\n")
      .link(d + "device", "../../../0000:3b:00.0")
      .dir(d + "device/net/ens1f0np0");
  add_port(fs, "mlx5_0", 1, 8, {});  // link down: no populated GID
  const std::string t = "class/infiniband/mlx4_0/";
  fs.file(t + "node_type", "1: CA\n")
      .link(t + "device", "../../../0000:04:00.0")
      .dir(t + "device/net/eth2")
      .dir(t + "device/net/eth3");
  add_port(fs, "mlx4_0", 1, 8, {});
  add_port(fs, "mlx4_0", 2, 8, {});
  const Snapshot snap = collect(fs);

  REQUIRE(snap.devices.size() == 2);
  CHECK(snap.devices[0].name == "mlx4_0");
  CHECK(snap.devices[0].ports.at(0).netdev.empty());  // two ports: cannot tell which
  CHECK(snap.devices[0].ports.at(1).netdev.empty());
  CHECK(snap.devices[1].ports.at(0).netdev == "ens1f0np0");
}

TEST_CASE("rdma sysfs: unprintable attribute text is reported, not stored", "[rdma_sysfs]") {
  FakeFileSource fs;
  add_mlx5(fs);
  fs.file("class/infiniband/mlx5_0/board_id", "MT_\x01\xff\n");
  fs.file("class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/0", "../../etc\n");
  const Snapshot snap = collect(fs);
  const DeviceSample& d = snap.devices.at(0);
  CHECK(d.board_id.empty());
  CHECK(test::status_of(snap, "mlx5_0").state == SourceState::error);
  CHECK_THAT(test::status_of(snap, "mlx5_0").message, Catch::Contains("board_id: "));
  CHECK(d.ports.at(0).gids.at(0).netdev.empty());
  CHECK(d.ports.at(0).netdev == "ens1f0np0");  // the next populated entry names it
  CHECK_THAT(test::status_of(snap, "mlx5_0/1").message, Catch::Contains("gid_attrs/ndevs/0: "));
}

// ------------------------------------------------------------------------------------------
// The collectors over the fixture hosts (tests/fixtures/hosts/<host>/sys) through the real
// directory source: symlinked class directories, real file contents.

namespace fixture {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

bool plain_counter(const std::string& text) {
  return !text.empty() && text.back() == '\n' && text.size() > 1 &&
         text.find_first_not_of("0123456789") == text.size() - 1;
}

// Every file of `dir` whose content is a plain "%llu\n" must be in `map` with that value;
// every other file must be absent from `map` (and, unless it is lifespan, named in `message`).
void check_counter_dir(const fs::path& dir, const CounterMap& map, const std::string& message) {
  if (!fs::exists(dir)) {
    CHECK(map.empty());
    return;
  }
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name == "lifespan") continue;
    ++files;
    INFO(entry.path().string());
    const std::string text = entry.is_regular_file() ? slurp(entry.path()) : std::string();
    if (plain_counter(text)) {
      REQUIRE(map.count(name) == 1);
      CHECK(map.at(name) == std::stoull(text));
    } else {
      CHECK(map.count(name) == 0);
      CHECK_THAT(message, Catch::Contains(dir.filename().string() + "/" + name + ": "));
    }
  }
  CHECK(files >= map.size());
}

struct Expected {
  std::string host;
  std::vector<std::pair<std::string, std::string>> devices;  // name, driver
  std::vector<std::string> netdevs;                          // read successfully
};

}  // namespace fixture

TEST_CASE("rdma + netdev sysfs over the fixture hosts", "[rdma_sysfs][fixtures]") {
  namespace fs = std::filesystem;
  const fixture::Expected hosts[] = {
      {"mlx5", {{"mlx5_0", "mlx5"}, {"mlx5_1", "mlx5"}}, {"ens1f0np0", "ens1f1np1"}},
      {"bnxt", {{"bnxt_re0", "bnxt_re"}}, {"ens2f0np0"}},
      {"irdma", {{"irdma0", "irdma"}}, {"ens3f0"}},
      {"rxe", {{"rxe0", "rxe"}}, {"eth0"}},
      {"degraded",
       {{"mlx5_2", "mlx5"}, {"mlx5_3", "mlx5"}, {"mlx5_4", "mlx5"}},
       {"ens5f0np0", "ens5f1np1"}},
  };
  for (const auto& host : hosts) {
    INFO("host " << host.host);
    const fs::path root = fs::path(RDMATOP_SOURCE_DIR) / "tests/fixtures/hosts" / host.host / "sys";
    REQUIRE(fs::is_directory(root));
    const auto source = make_directory_file_source(root.string());
    testing::UnsupportedEthtoolSource ethtool;
    const CollectContext ctx{*source, ethtool, {}};
    Snapshot snap;
    collect_rdma_sysfs(ctx, snap);
    collect_netdev_sysfs(ctx, snap);

    REQUIRE(snap.devices.size() == host.devices.size());
    for (std::size_t i = 0; i < host.devices.size(); ++i) {
      const DeviceSample& d = snap.devices[i];
      INFO("device " << d.name);
      CHECK(d.name == host.devices[i].first);
      CHECK(d.driver == host.devices[i].second);
      CHECK(d.node_type == "CA");
      const fs::path dev_dir = root / "class/infiniband" / d.name;
      CHECK(d.fw_ver == std::string(trim_attribute(fixture::slurp(dev_dir / "fw_ver"))));
      // PCI devices name their function; only the virtual rxe has none.
      CHECK(d.pci_address.empty() == (d.driver == "rxe"));
      REQUIRE_FALSE(d.ports.empty());
      const SourceStatus& ds = test::status_of(snap, d.name);
      CHECK(ds.state == SourceState::ok);
      fixture::check_counter_dir(dev_dir / "hw_counters", d.hw_counters, ds.message);
      for (const PortSample& p : d.ports) {
        INFO("port " << p.port);
        const fs::path port_dir = dev_dir / "ports" / std::to_string(p.port);
        const SourceStatus& ps = test::status_of(snap, d.name + "/" + std::to_string(p.port));
        CHECK(p.state_id.has_value());
        CHECK(p.rate_gbps.has_value());
        CHECK(p.link_layer == "Ethernet");
        CHECK_FALSE(p.netdev.empty());
        CHECK_FALSE(p.gids.empty());
        for (const auto& g : p.gids) CHECK((g.type == "RoCE v2" || g.type == "IB/RoCE v1"));
        fixture::check_counter_dir(port_dir / "counters", p.counters, ps.message);
        fixture::check_counter_dir(port_dir / "hw_counters", p.hw_counters, ps.message);
        if (fs::exists(port_dir / "hw_counters/lifespan")) {
          CHECK(p.hw_counters_lifespan_ms ==
                std::stoul(fixture::slurp(port_dir / "hw_counters/lifespan")));
        }
      }
    }

    REQUIRE(snap.netdevs.size() == host.netdevs.size());
    for (std::size_t i = 0; i < host.netdevs.size(); ++i) {
      const NetdevSample& n = snap.netdevs[i];
      INFO("netdev " << n.name);
      CHECK(n.name == host.netdevs[i]);
      CHECK(n.mtu.has_value());
      CHECK_FALSE(n.operstate.empty());
      CHECK_FALSE(n.address.empty());
      const SourceStatus& ns = test::status_of(snap, n.name);
      CHECK(ns.source == "netdev");
      CHECK(ns.state == SourceState::ok);
      fixture::check_counter_dir(root / "class/net" / n.name / "statistics", n.statistics,
                                 ns.message);
    }
  }
}

TEST_CASE("fixture host 'degraded': the error paths show in the statuses",
          "[rdma_sysfs][fixtures]") {
  const std::string root = std::string(RDMATOP_SOURCE_DIR) + "/tests/fixtures/hosts/degraded/sys";
  const auto source = make_directory_file_source(root);
  testing::UnsupportedEthtoolSource ethtool;
  const CollectContext ctx{*source, ethtool, {}};
  Snapshot snap;
  collect_rdma_sysfs(ctx, snap);
  collect_netdev_sysfs(ctx, snap);

  const SourceStatus& bad = test::status_of(snap, "mlx5_2/1");
  CHECK(bad.state == SourceState::error);
  CHECK_THAT(bad.message, Catch::Contains("hw_counters/np_cnp_sent: "));
  CHECK_THAT(bad.message, Catch::Contains("hw_counters/rp_cnp_handled: negative"));
  CHECK_THAT(bad.message, Catch::Contains("hw_counters/rx_icrc_encapsulated: Is a directory"));
  const SourceStatus& no_hw = test::status_of(snap, "mlx5_3/1");
  CHECK(no_hw.state == SourceState::ok);
  CHECK_THAT(no_hw.message, Catch::Contains("no hw_counters/"));
  const SourceStatus& gone = test::status_of(snap, "ens6f0np0");
  CHECK(gone.source == "netdev");
  CHECK(gone.state == SourceState::error);
}

}  // namespace
}  // namespace rdmatop
