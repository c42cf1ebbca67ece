#include "collector/parse/ethtool_text.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "collector/model/counter_map.h"
#include "collector/parse/sysfs_parse.h"
#include "tests/support/text_search.h"

namespace rdmatop {
namespace {

using rdmatop::test::printable_ascii;

namespace fs = std::filesystem;
using namespace std::string_literals;  // "\0" inside literals needs std::string

void check_error_message(const Error& error, const std::vector<std::string>& contains) {
  INFO("message: " << error.message);
  CHECK(error.code == 0);  // parse errors carry no errno
  CHECK(printable_ascii(error.message));
  CHECK(error.message.size() < 400);
  for (const auto& part : contains) CHECK_THAT(error.message, Catch::Contains(part));
}

fs::path hosts_dir() {
  return fs::path(RDMATOP_SOURCE_DIR) / "tests/fixtures/hosts";
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// ---- ethtool -S ---------------------------------------------------------------------------

struct StatsCase {
  const char* what;
  std::string text;
  CounterMap expected;  // the whole map
};

TEST_CASE("parse_ethtool_stats_text reads what ethtool -S prints", "[ethtool_text]") {
  const std::string name32(32, 'n');
  const StatsCase cases[] = {
      {"header and 5-space lines",
       "NIC statistics:\n     rx_packets: 10\n     tx_packets: 20\n",
       {{"rx_packets", 10}, {"tx_packets", 20}}},
      {"no header", "     rx_packets: 10\n", {{"rx_packets", 10}}},
      {"no indentation, tab indentation", "a: 1\n\tb: 2\n", {{"a", 1}, {"b", 2}}},
      {"ice names with dots",
       "NIC statistics:\n     rx_crc_errors.nic: 3\n",
       {{"rx_crc_errors.nic", 3}}},
      {"irdma gen3 names with spaces",
       "     RNR sent: 4\n     Nak Sequence Error: 0\n",
       {{"RNR sent", 4}, {"Nak Sequence Error", 0}}},
      // bnxt per-ring strings are "[%d]: %s": the value follows the LAST ": ".
      {"bnxt names with brackets and a colon",
       "     [0]: rx_ucast_packets: 7\n",
       {{"[0]: rx_ucast_packets", 7}}},
      {"a name of exactly ETH_GSTRING_LEN bytes", "     " + name32 + ": 1\n", {{name32, 1}}},
      {"u64 max", "     x: 18446744073709551615\n", {{"x", UINT64_MAX}}},
      {"CRLF line ends", "NIC statistics:\r\n     a: 1\r\n     b: 2\r\n", {{"a", 1}, {"b", 2}}},
      {"trailing blank lines", "     a: 1\n\n\n", {{"a", 1}}},
      {"a complete last line without newline", "     a: 1\n     b: 22", {{"a", 1}, {"b", 22}}},
      // Duplicate strings: the first value wins and the dump is still usable.
      {"duplicate name keeps the first value",
       "     a: 1\n     a: 2\n     b: 3\n",
       {{"a", 1}, {"b", 3}}},
  };
  for (const auto& c : cases) {
    INFO(c.what << ": " << escape_for_message(c.text, 200));
    const auto r = parse_ethtool_stats_text(c.text);
    REQUIRE(r.ok());
    CHECK(*r == c.expected);
  }
}

struct BadCase {
  const char* what;
  std::string text;
  std::vector<std::string> contains;
};

TEST_CASE("parse_ethtool_stats_text rejects malformed and truncated dumps", "[ethtool_text]") {
  const BadCase cases[] = {
      {"empty", "", {"empty input"}},
      {"only whitespace", "\n \n\t\n", {"empty input"}},
      {"header only", "NIC statistics:\n", {"no counter lines"}},
      {"no separator", "NIC statistics:\n     garbage\n", {"line 2", "expected \"name: value\""}},
      {"colon without space", "     a:1\n", {"line 1", "expected"}},
      {"not a number", "     a: 1\n     b: abc\n", {"line 2", "not an unsigned decimal"}},
      {"negative", "     a: -5\n", {"line 1", "negative"}},
      {"overflow", "     a: 18446744073709551616\n", {"line 1", "exceeds 2^64-1"}},
      {"hex", "     a: 0x10\n", {"not an unsigned decimal"}},
      {"empty value", "     a: \n     b: 1\n", {"line 1", "empty counter value"}},
      {"empty name", "     : 5\n", {"line 1", "empty counter name"}},
      {"name longer than 32 bytes",
       "     " + std::string(33, 'n') + ": 1\n",
       {"line 1", "longer than ETH_GSTRING_LEN"}},
      {"control byte in name", "     a\x01z: 1\n", {"non-printable", "\\x01"}},
      {"not UTF-8", "     \xff\xfe: 1\n", {"non-ASCII", "\\xff\\xfe"}},
      {"NUL in value",
       "     a: 1\0"
       "2\n"s,
       {"line 1", "\\x00"}},
      {"blank line inside", "     a: 1\n\n     b: 2\n", {"line 2", "blank line inside"}},
      {"header not on line 1", "     a: 1\nNIC statistics:\n", {"line 2", "expected"}},
      {"cut mid-name",
       "NIC statistics:\n     rx_bytes: 12\n     tx_by",
       {"line 3", "truncated (last line has no newline)", "\"     tx_by\""}},
      {"cut after the separator", "     a: 1\n     b: ", {"line 2", "truncated"}},
      {"cut mid-header", "NIC stati", {"line 1", "truncated"}},
      {"binary garbage",
       "\x7f"
       "ELF\x02\x01\x01\0\0\0"s,
       {"line 1", "\\x7fELF"}},
  };
  for (const auto& c : cases) {
    INFO(c.what << ": " << escape_for_message(c.text, 200));
    const auto r = parse_ethtool_stats_text(c.text);
    REQUIRE_FALSE(r.ok());
    check_error_message(r.error(), c.contains);
  }
}

TEST_CASE("a huge garbage line gives a short message", "[ethtool_text]") {
  const auto r = parse_ethtool_stats_text(std::string(1 << 20, 'x') + "\n");
  REQUIRE_FALSE(r.ok());
  check_error_message(r.error(), {"line 1", "(1048576 bytes)"});
}

TEST_CASE("a well-formed last line without newline is read, a malformed one is truncation",
          "[ethtool_text]") {
  // The same bytes with and without the final newline: only the message changes.
  const auto with_newline = parse_ethtool_stats_text("     a: 1\n     b: x\n");
  const auto without = parse_ethtool_stats_text("     a: 1\n     b: x");
  REQUIRE_FALSE(with_newline.ok());
  REQUIRE_FALSE(without.ok());
  CHECK_THAT(with_newline.error().message, !Catch::Contains("truncated"));
  CHECK_THAT(without.error().message, Catch::Contains("truncated"));
}

// A dump read through the layout of an earlier one takes the layout's names without checking
// them again (take_expected_line): whatever the earlier dump was, the result must be the one of a
// parse without a layout, value for value and error for error. The texts pair each malformed
// line with a well-formed dump of the same names, so the layout expects the name on the line
// that is wrong.
TEST_CASE("a dump parsed through an earlier dump's layout gives what a fresh parse gives",
          "[ethtool_text]") {
  const std::string texts[] = {
      "NIC statistics:\n     a: 1\n     b: 2\n",
      "NIC statistics:\n     a: 7\n     b: 8\n     c: 9\n",
      "     a: 1\n     b: 2\n",
      "     a: 1\n     b: abc\n",
      "     a: 1\n     b: -5\n",
      "     a: 1\n     b: \n",
      "     a: 1\n     b: 1 2\n",
      "     a: 1\n     b: 18446744073709551616\n",
      "     a: 1\n     b: 18446744073709551615\n",
      "     a: 1\n     b: 9999999999999999999\n",
      "     a: 1\n     b: 99999999999999999999\n",
      "     a: 1\n     b: 2  \n",
      "     a: 1\n     b: 2\r\n",
      "     a: 1\n     b: 2x\n",
      "     a: 1\n     b: 0\n",
      "     a: 1\n\t b: 2\n",
      "     a: 1\n     b: 2\n     c: 3",
      "     a: 1\n\n     b: 2\n",
      "     a: 1\n     b: 2\n\n",
      "     a: 1\n     b:2\n",
      "     a: 1\n     b:22\n",
      "     a: 1\n     b",
      "     a: 1\n     b: 2",
      "     a: 1: 2\n     b: 3\n",
      "     a: 1\n     a: 2\n     b: 3\n",
      "     b: 2\n     a: 1\n",
      "     x: 5\n",
      "     x:: 5\n",
      "     x::: 5\n",
      "\tx: 5\r\n",
      "     [0]: rx_ucast_packets: 7\n",
      "     [0]: rx_ucast_packets: 7: 8\n",
      "     " + std::string(32, 'n') + ": 1\n",
      "     " + std::string(32, 'n') + "n: 1\n",
  };
  for (const std::string& earlier : texts) {
    for (const std::string& text : texts) {
      INFO("earlier: " << escape_for_message(earlier, 200));
      INFO("now: " << escape_for_message(text, 200));
      CounterLayout layout;
      (void)parse_ethtool_stats_text(earlier, &layout);
      const auto fresh = parse_ethtool_stats_text(text);
      // Twice: the second pass runs through the layout the first one left.
      for (int pass = 0; pass < 2; ++pass) {
        const auto through_layout = parse_ethtool_stats_text(text, &layout);
        REQUIRE(through_layout.ok() == fresh.ok());
        if (fresh.ok()) {
          CHECK(*through_layout == *fresh);
        } else {
          CHECK(through_layout.error().message == fresh.error().message);
        }
      }
    }
  }
}

// ---- ethtool -i ---------------------------------------------------------------------------

TEST_CASE("parse_ethtool_driver_info_text reads ethtool -i", "[ethtool_text]") {
  struct Case {
    const char* what;
    std::string text;
    DriverInfo expected;
  };
  const Case cases[] = {
      {"mlx5",
       "driver: mlx5_core\nversion: 6.10.14\nfirmware-version: 22.39.1002 (MT_0000000012)\n"
       "expansion-rom-version: \nbus-info: 0000:3b:00.0\nsupports-statistics: yes\n",
       {"mlx5_core", "6.10.14", "22.39.1002 (MT_0000000012)", "0000:3b:00.0"}},
      {"empty firmware, CRLF, stripped trailing space",
       "driver: virtio_net\r\nversion: 1.0.0\r\nfirmware-version:\r\nbus-info: 0000:00:03.0\r\n",
       {"virtio_net", "1.0.0", "", "0000:00:03.0"}},
      {"only the driver line", "driver: ice\n", {"ice", "", "", ""}},
      {"duplicate key keeps the first", "driver: a\ndriver: b\n", {"a", "", "", ""}},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    const auto r = parse_ethtool_driver_info_text(c.text);
    REQUIRE(r.ok());
    CHECK(r->driver == c.expected.driver);
    CHECK(r->version == c.expected.version);
    CHECK(r->fw_version == c.expected.fw_version);
    CHECK(r->bus_info == c.expected.bus_info);
  }
}

TEST_CASE("parse_ethtool_driver_info_text rejects what ethtool -i cannot print", "[ethtool_text]") {
  const BadCase cases[] = {
      {"empty", "", {"empty input"}},
      {"no driver line", "version: 1\nbus-info: x\n", {"no \"driver:\" line"}},
      {"line without colon", "driver: mlx5_core\ngarbage\n", {"line 2", "expected"}},
      {"empty key", ": value\n", {"line 1", "malformed key"}},
      {"control byte in value", "driver: ml\x01x5\n", {"line 1", "\\x01"}},
      {"cut before the colon", "driver: mlx5_core\nbus-in", {"line 2", "truncated"}},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    const auto r = parse_ethtool_driver_info_text(c.text);
    REQUIRE_FALSE(r.ok());
    check_error_message(r.error(), c.contains);
  }
}

// ---- ethtool -I -a ------------------------------------------------------------------------

TEST_CASE("parse_ethtool_pause_text reads ethtool -a and -I -a", "[ethtool_text]") {
  struct Case {
    const char* what;
    std::string text;
    PauseInfo expected;
  };
  const Case cases[] = {
      {"with statistics",
       "Pause parameters for ens1f0np0:\nAutonegotiate:\toff\nRX:\t\ton\nTX:\t\toff\n"
       "Statistics:\n  tx_pause_frames: 402117\n  rx_pause_frames: 1204331\n\n",
       {false, true, false, 1204331, 402117}},
      {"without statistics (driver has no get_pause_stats)",
       "Pause parameters for eth0:\nAutonegotiate:\ton\nRX:\t\ton\nTX:\t\ton\n"
       "RX negotiated: on\nTX negotiated: off\n\n",
       {true, true, true, std::nullopt, std::nullopt}},
      {"n/a for an attribute the kernel omitted",
       "Pause parameters for eth0:\nAutonegotiate:\tn/a\nRX:\t\toff\nTX:\t\toff\n",
       {std::nullopt, false, false, std::nullopt, std::nullopt}},
      {"a newer statistic is accepted and ignored",
       "Pause parameters for eth0:\nRX:\t\ton\nStatistics:\n  tx_pause_frames: 1\n"
       "  tx_pause_storm_events: 9\n  rx_pause_frames: 2\n",
       {std::nullopt, true, std::nullopt, 2, 1}},
      {"CRLF",
       "Pause parameters for eth0:\r\nTX:\t\ton\r\n",
       {std::nullopt, std::nullopt, true, std::nullopt, std::nullopt}},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    const auto r = parse_ethtool_pause_text(c.text);
    REQUIRE(r.ok());
    CHECK(r->autoneg == c.expected.autoneg);
    CHECK(r->rx == c.expected.rx);
    CHECK(r->tx == c.expected.tx);
    CHECK(r->rx_frames == c.expected.rx_frames);
    CHECK(r->tx_frames == c.expected.tx_frames);
  }
}

TEST_CASE("parse_ethtool_pause_text rejects what ethtool -a cannot print", "[ethtool_text]") {
  const std::string header = "Pause parameters for eth0:\n";
  const BadCase cases[] = {
      {"empty", "", {"empty input"}},
      {"no header", "RX:\t\ton\n", {"line 1", "Pause parameters for"}},
      {"header without interface", "Pause parameters for :\n", {"line 1"}},
      {"bad boolean", header + "RX:\t\tmaybe\n", {"line 2", "on, off or n/a"}},
      {"line without colon", header + "garbage\n", {"line 2", "expected"}},
      {"negative statistic",
       header + "Statistics:\n  rx_pause_frames: -1\n",
       {"line 3", "negative"}},
      {"garbage statistic",
       header + "Statistics:\n  rx_pause_frames: lots\n",
       {"line 3", "not an unsigned decimal"}},
      {"statistic cut mid-value",
       header + "Statistics:\n  tx_pause_frames: 12\n  rx_pause_fr",
       {"line 4", "truncated"}},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    const auto r = parse_ethtool_pause_text(c.text);
    REQUIRE_FALSE(r.ok());
    check_error_message(r.error(), c.contains);
  }
}

// ---- the fixture hosts --------------------------------------------------------------------

std::uint64_t at(const CounterMap& map, const std::string& name) {
  INFO("counter " << name);
  const auto it = map.find(name);
  REQUIRE(it != map.end());
  return it->second;
}

TEST_CASE("every fixture capture parses, except the deliberately truncated one",
          "[ethtool_text][fixtures]") {
  std::size_t stats_files = 0;
  for (const auto& host : fs::directory_iterator(hosts_dir())) {
    for (const auto& entry : fs::directory_iterator(host.path() / "ethtool")) {
      const fs::path& path = entry.path();
      const std::string text = slurp(path);
      INFO(path.string());
      if (path.extension() == ".txt") {
        const auto r = parse_ethtool_stats_text(text);
        if (path.filename() == "ens5f0np0.txt" && host.path().filename() == "degraded") {
          REQUIRE_FALSE(r.ok());
          CHECK_THAT(r.error().message, Catch::Contains("truncated"));
          continue;
        }
        REQUIRE(r.ok());
        // One counter per line after the header: nothing was dropped or merged.
        const auto lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
        CHECK(r->size() == lines - 1);
        ++stats_files;
      } else if (path.extension() == ".info") {
        CHECK(parse_ethtool_driver_info_text(text).ok());
      } else if (path.extension() == ".pause") {
        CHECK(parse_ethtool_pause_text(text).ok());
      } else {
        FAIL("unexpected file in an ethtool capture directory");
      }
    }
  }
  CHECK(stats_files >= 5);  // mlx5 has two ports, bnxt, irdma and rxe one each
}

CounterMap fixture_stats(const std::string& host, const std::string& ifname) {
  auto r = parse_ethtool_stats_text(slurp(hosts_dir() / host / "ethtool" / (ifname + ".txt")));
  REQUIRE(r.ok());
  return std::move(r).value();
}

TEST_CASE("mlx5 fixture: known values and the relations the rules rely on",
          "[ethtool_text][fixtures]") {
  const CounterMap up = fixture_stats("mlx5", "ens1f0np0");
  CHECK(at(up, "rx_prio3_pause") == 1204331);
  CHECK(at(up, "rx_vport_rdma_unicast_bytes") == 10842455389116ULL);
  CHECK(at(up, "tx_pause_storm_error_events") == 0);
  // mlx5 emits PFC strings only for PFC-enabled priorities (3 here).
  CHECK(up.count("rx_prio0_pause") == 0);
  CHECK(up.count("rx_prio3_pause_duration") == 1);
  // Per-priority traffic adds up to the port totals, per-lane FEC bits to the total, and
  // per-ring packets to the software total.
  std::uint64_t rx = 0, tx = 0;
  for (int p = 0; p < 8; ++p) {
    rx += at(up, "rx_prio" + std::to_string(p) + "_packets");
    tx += at(up, "tx_prio" + std::to_string(p) + "_packets");
  }
  CHECK(rx == at(up, "rx_packets_phy"));
  CHECK(tx == at(up, "tx_packets_phy"));
  std::uint64_t lanes = 0;
  for (int l = 0; l < 4; ++l) lanes += at(up, "rx_err_lane_" + std::to_string(l) + "_phy");
  CHECK(lanes == at(up, "rx_corrected_bits_phy"));
  CHECK(at(up, "rx0_packets") + at(up, "rx1_packets") == at(up, "rx_packets"));
  // A pause duration cannot exceed 65535 quanta (about 335 µs at 100 GbE) per frame.
  CHECK(at(up, "rx_prio3_pause_duration") <= at(up, "rx_prio3_pause") * 336);

  const CounterMap down = fixture_stats("mlx5", "ens1f1np1");
  CHECK(at(down, "module_unplug") == 1);
  CHECK(at(down, "link_down_events_phy") == 1);
  CHECK(down.count("rx_prio3_pause") == 1);
}

TEST_CASE("bnxt, irdma and rxe fixtures: driver-specific names come back",
          "[ethtool_text][fixtures]") {
  const CounterMap bnxt = fixture_stats("bnxt", "ens2f0np0");
  CHECK(at(bnxt, "pfc_pri3_rx_duration_us") == 12377903);
  CHECK(at(bnxt, "[1]: rx_discards") + at(bnxt, "[0]: rx_discards") ==
        at(bnxt, "rx_total_discard_pkts"));
  // Priorities mapped to the same CoS queue report that queue's counter.
  CHECK(at(bnxt, "rx_bytes_pri0") == at(bnxt, "rx_bytes_cos0"));
  CHECK(at(bnxt, "rx_bytes_pri3") == at(bnxt, "rx_bytes_cos1"));
  CHECK(at(bnxt, "rx_pfc_frames") == at(bnxt, "rx_pfc_ena_frames_pri3"));

  const CounterMap ice = fixture_stats("irdma", "ens3f0");
  CHECK(at(ice, "rx_priority_3_xoff.nic") == 611004);
  CHECK(at(ice, "rx_crc_errors.nic") == 3);
  CHECK(at(ice, "tx_priority_0_xon.nic") == 0);

  const CounterMap virtio = fixture_stats("rxe", "eth0");
  CHECK(at(virtio, "tx_queue_0_kicks") == 20118330);
  CHECK(virtio.size() == 14);
}

}  // namespace
}  // namespace rdmatop
