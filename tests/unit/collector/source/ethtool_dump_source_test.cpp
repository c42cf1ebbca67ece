#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "collector/source/ethtool_source.h"
#include "tests/support/temp_dir.h"

namespace rdmatop {
namespace {

namespace fs = std::filesystem;

fs::path host_ethtool(const std::string& host) {
  return fs::path(RDMATOP_SOURCE_DIR) / "tests/fixtures/hosts" / host / "ethtool";
}

constexpr const char* kStats = "NIC statistics:\n     rx_packets: 10\n";
constexpr const char* kInfo = "driver: mlx5_core\nversion: 6.10.14\nbus-info: 0000:3b:00.0\n";
constexpr const char* kPause =
    "Pause parameters for eth0:\nAutonegotiate:\toff\nRX:\t\ton\nTX:\t\ton\n"
    "Statistics:\n  tx_pause_frames: 5\n  rx_pause_frames: 6\n\n";

TEST_CASE("dump source reads <if>.txt, <if>.info and <if>.pause", "[ethtool_dump_source]") {
  const DumpReads reads = GENERATE(DumpReads::plain, DumpReads::cached);
  test::TempDir dir;
  dir.write("eth0.txt", kStats);
  dir.write("eth0.info", kInfo);
  dir.write("eth0.pause", kPause);
  const auto source = make_dump_ethtool_source(dir.path(), reads);

  const auto stats = source->stats("eth0");
  REQUIRE(stats.ok());
  CHECK(stats->at("rx_packets") == 10);
  const auto info = source->driver_info("eth0");
  REQUIRE(info.ok());
  CHECK(info->driver == "mlx5_core");
  CHECK(info->bus_info == "0000:3b:00.0");
  const auto pause = source->pause("eth0");
  REQUIRE(pause.ok());
  CHECK(pause->rx == true);
  CHECK(pause->rx_frames == 6u);
  CHECK(pause->tx_frames == 5u);
  CHECK(source->describe() == "dir " + dir.path());
}

TEST_CASE("dump source falls back to a bare <if> file and prefers <if>.txt",
          "[ethtool_dump_source]") {
  const DumpReads reads = GENERATE(DumpReads::plain, DumpReads::cached);
  test::TempDir dir;
  dir.write("eth1", "     a: 1\n");
  dir.write("eth2", "     a: 1\n");
  dir.write("eth2.txt", "     a: 2\n");
  const auto source = make_dump_ethtool_source(dir.path(), reads);
  const auto bare = source->stats("eth1");
  REQUIRE(bare.ok());
  CHECK(bare->at("a") == 1);
  const auto both = source->stats("eth2");
  REQUIRE(both.ok());
  CHECK(both->at("a") == 2);
}

TEST_CASE("dump source answers EOPNOTSUPP for an interface without a capture",
          "[ethtool_dump_source]") {
  const DumpReads reads = GENERATE(DumpReads::plain, DumpReads::cached);
  test::TempDir dir;
  const auto source = make_dump_ethtool_source(dir.path(), reads);
  const auto stats = source->stats("ens9");
  REQUIRE_FALSE(stats.ok());
  CHECK(stats.error().code == EOPNOTSUPP);
  CHECK(stats.error().message == "no ethtool dump for ens9 in " + dir.path());
  const auto info = source->driver_info("ens9");
  REQUIRE_FALSE(info.ok());
  CHECK(info.error().code == EOPNOTSUPP);
  CHECK_THAT(info.error().message, Catch::Contains("ethtool -i"));
  const auto pause = source->pause("ens9");
  REQUIRE_FALSE(pause.ok());
  CHECK(pause.error().code == EOPNOTSUPP);
  CHECK_THAT(pause.error().message, Catch::Contains("ethtool -a"));
}

TEST_CASE("dump source reports parse errors with the file path", "[ethtool_dump_source]") {
  const DumpReads reads = GENERATE(DumpReads::plain, DumpReads::cached);
  test::TempDir dir;
  dir.write("eth0.txt", "NIC statistics:\n     rx_packets: 1\n     tx_pack");
  dir.write("eth0.info", "version: 1\n");
  dir.write("eth0.pause", "RX: on\n");
  const auto source = make_dump_ethtool_source(dir.path(), reads);
  const auto stats = source->stats("eth0");
  REQUIRE_FALSE(stats.ok());
  CHECK(stats.error().code == 0);
  CHECK_THAT(stats.error().message, Catch::StartsWith(dir.path() + "/eth0.txt: "));
  CHECK_THAT(stats.error().message, Catch::Contains("line 3"));
  CHECK_THAT(stats.error().message, Catch::Contains("truncated"));
  const auto info = source->driver_info("eth0");
  REQUIRE_FALSE(info.ok());
  CHECK_THAT(info.error().message, Catch::StartsWith(dir.path() + "/eth0.info: "));
  const auto pause = source->pause("eth0");
  REQUIRE_FALSE(pause.ok());
  CHECK_THAT(pause.error().message, Catch::StartsWith(dir.path() + "/eth0.pause: "));
}

TEST_CASE("dump source refuses names that are not one path component", "[ethtool_dump_source]") {
  const DumpReads reads = GENERATE(DumpReads::plain, DumpReads::cached);
  test::TempDir dir;
  dir.write("eth0.txt", kStats);
  const auto source = make_dump_ethtool_source(dir.path() + "/sub", reads);
  const std::string names[] = {
      "", ".", "..", "../eth0", "a/b", "toolonginterface0", std::string("et\0h0", 5)};
  for (const std::string& name : names) {
    INFO("ifname " << name);
    const auto r = source->stats(name);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == EINVAL);
  }
}

TEST_CASE("dump source passes other I/O errors through", "[ethtool_dump_source]") {
  const DumpReads reads = GENERATE(DumpReads::plain, DumpReads::cached);
  test::TempDir dir;
  fs::create_directory(fs::path(dir.path()) / "eth0.txt");  // a directory, not a capture
  const auto source = make_dump_ethtool_source(dir.path(), reads);
  const auto r = source->stats("eth0");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == EISDIR);
  CHECK_THAT(r.error().message, Catch::Contains("eth0.txt"));
}

TEST_CASE("dump source on the fixture hosts", "[ethtool_dump_source][fixtures]") {
  const DumpReads reads = GENERATE(DumpReads::plain, DumpReads::cached);
  const auto mlx5 = make_dump_ethtool_source(host_ethtool("mlx5").string(), reads);
  const auto stats = mlx5->stats("ens1f0np0");
  REQUIRE(stats.ok());
  CHECK(stats->at("rx_out_of_buffer") == 1337);
  const auto info = mlx5->driver_info("ens1f0np0");
  REQUIRE(info.ok());
  CHECK(info->fw_version == "22.39.1002 (MT_0000000012)");
  const auto pause = mlx5->pause("ens1f0np0");
  REQUIRE(pause.ok());
  // mlx5 fills the standard pause statistics from the same 802.3 fields as *_pause_ctrl_phy.
  CHECK(pause->rx_frames == stats->at("rx_pause_ctrl_phy"));
  CHECK(pause->tx_frames == stats->at("tx_pause_ctrl_phy"));
  CHECK(pause->rx == false);

  // virtio_net has no pause support: no capture, EOPNOTSUPP.
  const auto rxe = make_dump_ethtool_source(host_ethtool("rxe").string(), reads);
  CHECK(rxe->stats("eth0").ok());
  CHECK(rxe->driver_info("eth0")->driver == "virtio_net");
  CHECK(rxe->pause("eth0").error().code == EOPNOTSUPP);

  const auto ice = make_dump_ethtool_source(host_ethtool("irdma").string(), reads);
  const auto ice_pause = ice->pause("ens3f0");
  REQUIRE(ice_pause.ok());
  CHECK_FALSE(ice_pause->rx_frames.has_value());

  const auto degraded = make_dump_ethtool_source(host_ethtool("degraded").string(), reads);
  const auto cut = degraded->stats("ens5f0np0");
  REQUIRE_FALSE(cut.ok());
  CHECK_THAT(cut.error().message, Catch::Contains("ens5f0np0.txt"));
  CHECK_THAT(cut.error().message, Catch::Contains("truncated"));
  CHECK(degraded->driver_info("ens5f0np0").ok());
  CHECK(degraded->stats("ens5f1np1").error().code == EOPNOTSUPP);
}

TEST_CASE("each interface's dumps of the same names share them; a changed dump reads as it is",
          "[ethtool_dump_source]") {
  const DumpReads reads = GENERATE(DumpReads::plain, DumpReads::cached);
  test::TempDir dir;
  dir.write("eth0.txt", "NIC statistics:\n     tx_bytes: 1\n     rx_bytes: 2\n");
  dir.write("eth1.txt", "NIC statistics:\n     tx_bytes: 5\n     rx_bytes: 6\n");
  const auto source = make_dump_ethtool_source(dir.path(), reads);
  const auto first = source->stats("eth0");
  const auto other = source->stats("eth1");
  REQUIRE(first.ok());
  REQUIRE(other.ok());

  dir.write("eth0.txt", "NIC statistics:\n     tx_bytes: 3\n     rx_bytes: 4\n");
  source->begin_pass();
  const auto second = source->stats("eth0");
  REQUIRE(second.ok());
  CHECK(second->names() == first->names());
  CHECK(*second == CounterMap{{"rx_bytes", 4}, {"tx_bytes", 3}});
  CHECK(*other == CounterMap{{"rx_bytes", 6}, {"tx_bytes", 5}});

  // A driver's set changed (a counter added in front, one repeated): read as it is now.
  dir.write("eth0.txt",
            "NIC statistics:\n     a: 9\n     tx_bytes: 7\n     rx_bytes: 8\n     a: 1\n");
  source->begin_pass();
  const auto changed = source->stats("eth0");
  REQUIRE(changed.ok());
  CHECK(*changed == CounterMap{{"a", 9}, {"rx_bytes", 8}, {"tx_bytes", 7}});
  // A dump that does not parse leaves the names of the last one that did.
  dir.write("eth0.txt", "NIC statistics:\n     a: 2\n     tx_bytes: x\n");
  source->begin_pass();
  CHECK_FALSE(source->stats("eth0").ok());
  dir.write("eth0.txt",
            "NIC statistics:\n     a: 3\n     tx_bytes: 4\n     rx_bytes: 5\n     a: 6\n");
  source->begin_pass();
  const auto after = source->stats("eth0");
  REQUIRE(after.ok());
  CHECK(after->names() == changed->names());
  CHECK(*after == CounterMap{{"a", 3}, {"rx_bytes", 5}, {"tx_bytes", 4}});
}

TEST_CASE("cached dump source sees rewrites, replacements and new captures at the next pass",
          "[ethtool_dump_source]") {
  test::TempDir dir;
  dir.write("eth0.txt", kStats);
  dir.write("eth0.info", kInfo);
  const auto source = make_dump_ethtool_source(dir.path(), DumpReads::cached);
  source->begin_pass();
  REQUIRE(source->stats("eth0").ok());
  CHECK(source->stats("eth0")->at("rx_packets") == 10);
  CHECK(source->driver_info("eth0")->driver == "mlx5_core");
  CHECK(source->pause("eth0").error().code == EOPNOTSUPP);

  // Rewritten in place (what `ethtool -S eth0 > eth0.txt` does): the held file shows it even
  // before the next pass, since counters are re-read on every call.
  dir.write("eth0.txt", "NIC statistics:\n     rx_packets: 11\n");
  CHECK(source->stats("eth0")->at("rx_packets") == 11);

  // Replaced by rename (a capture tool writing a new file): seen from the next pass on.
  dir.write("eth0.txt.new", "NIC statistics:\n     rx_packets: 12\n");
  fs::rename(fs::path(dir.path()) / "eth0.txt.new", fs::path(dir.path()) / "eth0.txt");
  dir.write("eth0.info.new", "driver: ice\nversion: 1.0\nbus-info: 0000:3b:00.0\n");
  fs::rename(fs::path(dir.path()) / "eth0.info.new", fs::path(dir.path()) / "eth0.info");
  dir.write("eth0.pause", kPause);
  source->begin_pass();
  CHECK(source->stats("eth0")->at("rx_packets") == 12);
  CHECK(source->driver_info("eth0")->driver == "ice");
  REQUIRE(source->pause("eth0").ok());
  CHECK(source->pause("eth0")->tx_frames == 5u);

  // Removed: not captured any more, as for the plain reader.
  fs::remove(fs::path(dir.path()) / "eth0.txt");
  source->begin_pass();
  CHECK(source->stats("eth0").error().code == EOPNOTSUPP);
}

}  // namespace
}  // namespace rdmatop
