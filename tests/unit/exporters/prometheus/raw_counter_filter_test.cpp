#include "exporters/prometheus/raw_counter_filter.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>

#include "collector/parse/ethtool_text.h"

using namespace rdmatop;

namespace {

CounterMap fixture_stats(const std::string& host, const std::string& netdev) {
  std::ifstream in(std::string(RDMATOP_SOURCE_DIR) + "/tests/fixtures/hosts/" + host + "/ethtool/" +
                   netdev + ".txt");
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  auto stats = parse_ethtool_stats_text(text.str());
  REQUIRE(stats.ok());
  return *stats;
}

std::size_t per_queue_count(const CounterMap& stats) {
  std::size_t n = 0;
  for (const auto& [name, value] : stats) n += is_per_queue_ethtool_stat(name) ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("raw counters: per-queue ethtool statistics of real drivers are recognised",
          "[exporter][raw]") {
  const CounterMap mlx5 = fixture_stats("mlx5", "ens1f0np0");
  REQUIRE(mlx5.count("rx0_packets") == 1);
  CHECK(is_per_queue_ethtool_stat("rx0_packets"));
  CHECK(is_per_queue_ethtool_stat("tx7_xmit_more"));
  CHECK(is_per_queue_ethtool_stat("ch0_events"));
  // Port-wide statistics that look numbered are not per queue: priorities, size buckets.
  REQUIRE(mlx5.count("rx_prio3_pause") == 1);
  CHECK_FALSE(is_per_queue_ethtool_stat("rx_prio3_pause"));
  CHECK_FALSE(is_per_queue_ethtool_stat("rx_64_bytes_phy"));
  CHECK_FALSE(is_per_queue_ethtool_stat("rx_65_to_127_bytes_phy"));
  CHECK_FALSE(is_per_queue_ethtool_stat("tx_pfc_ena_frames_pri3"));
  CHECK_FALSE(is_per_queue_ethtool_stat("rx_packets"));
  CHECK(per_queue_count(mlx5) == 148);

  const CounterMap bnxt = fixture_stats("bnxt", "ens2f0np0");
  REQUIRE(bnxt.count("[0]: rx_ucast_packets") == 1);
  CHECK(is_per_queue_ethtool_stat("[0]: rx_ucast_packets"));
  CHECK_FALSE(is_per_queue_ethtool_stat("rx_pfc_ena_frames_pri3"));
  CHECK(per_queue_count(bnxt) == 50);

  CHECK(is_per_queue_ethtool_stat("rx_queue_0_packets"));  // virtio_net, ice, ixgbe
  CHECK(is_per_queue_ethtool_stat("tx-5.bytes"));          // i40e
  CHECK_FALSE(is_per_queue_ethtool_stat("rx_queue_full"));
}

TEST_CASE("raw counters: per-queue statistics are off by default, on when asked",
          "[exporter][raw]") {
  const auto by_default = RawCounterFilter::make({});
  REQUIRE(by_default.ok());
  CHECK_FALSE(by_default->admits("rx0_packets", true));
  CHECK(by_default->admits("rx_prio3_pause", true));
  // Only ethtool statistics have queues: an hw_counter named like one is kept.
  CHECK(by_default->admits("rx0_packets", false));

  RawCounterFilterOptions options;
  options.per_queue = true;
  const auto with_queues = RawCounterFilter::make(options);
  REQUIRE(with_queues.ok());
  CHECK(with_queues->admits("rx0_packets", true));
}

TEST_CASE("raw counters: include and exclude match the whole name", "[exporter][raw]") {
  RawCounterFilterOptions options;
  options.include = "rx_prio.*|pfc_.*";
  options.exclude = ".*_bytes";
  const auto filter = RawCounterFilter::make(options);
  REQUIRE(filter.ok());
  CHECK(filter->admits("rx_prio3_pause", true));
  CHECK(filter->admits("pfc_pri3_rx_duration_us", true));
  CHECK_FALSE(filter->admits("rx_prio3_bytes", true));     // excluded
  CHECK_FALSE(filter->admits("tx_rx_prio3_pause", true));  // anchored: no partial match
  CHECK_FALSE(filter->admits("out_of_sequence", false));
  // Decisions are cached; asking twice gives the same answer.
  CHECK_FALSE(filter->admits("rx_prio3_bytes", true));
  const RawCounterFilter copy = *filter;
  CHECK(copy.admits("rx_prio3_pause", true));
}

TEST_CASE("raw counters: a bad pattern is an error naming its flag", "[exporter][raw]") {
  RawCounterFilterOptions options;
  options.exclude = "rx_(prio";
  const auto filter = RawCounterFilter::make(options);
  REQUIRE_FALSE(filter.ok());
  CHECK(filter.error().message.find("--raw-counters-exclude 'rx_(prio'") != std::string::npos);
}
