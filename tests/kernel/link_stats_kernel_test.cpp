// The rtnetlink statistics source against the running kernel: its RTM_GETSTATS answers against
// class/net/<if>/statistics/ of the same netdevs, and the netdev collector taking its statistics
// from them. In the private network namespace kernel_main.cpp entered, whose sysfs is
// mounted on /sys (kernel_support.h): a veth pair under UDP traffic, and lo.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cerrno>
#include <iostream>
#include <string>
#include <vector>

#include "collector/collect.h"
#include "collector/parse/sysfs_parse.h"
#include "collector/source/cached_file_source.h"
#include "collector/source/link_stats_source.h"
#include "tests/kernel/kernel_support.h"
#include "tests/kernel/veth_pair.h"
#include "tests/support/port_netdevs.h"
#include "tests/support/unsupported_ethtool_source.h"

namespace rdmatop {
namespace {

using kernel_test::BackgroundTraffic;
using kernel_test::kA;
using kernel_test::kB;
using kernel_test::VethPair;

/// False, with the reason printed, when /sys is not this namespace's sysfs.
bool have_private_sysfs() {
  if (const auto& problem = kernel_test::private_sysfs_problem()) {
    std::cout << "SKIP (this case): /sys is not the private namespace's sysfs: " << *problem
              << "\n";
    return false;
  }
  return true;
}

std::uint64_t sysfs_u64(const FileSource& sysfs, const std::string& relpath) {
  auto text = sysfs.read(relpath);
  REQUIRE(text.ok());
  auto value = parse_counter_value(*text);
  REQUIRE(value.ok());
  return *value;
}

TEST_CASE("each RTM_GETSTATS value lies between sysfs reads of the same counter under traffic",
          "[kernel][link_stats]") {
  if (!have_private_sysfs()) return;
  VethPair veth;
  BackgroundTraffic traffic;
  const auto sysfs = make_directory_file_source("/sys");
  auto source = make_live_link_stats_source();
  for (const std::string ifname : {kA, kB, "lo"}) {
    INFO("netdev " << ifname);
    const std::string dir = "class/net/" + ifname + "/statistics/";
    std::vector<std::uint64_t> before;
    for (const auto field : kLinkStatsFields) {
      before.push_back(sysfs_u64(*sysfs, dir + std::string(field)));
    }
    auto ifindex = source->ifindex(ifname);
    REQUIRE(ifindex.ok());
    CHECK(*ifindex == sysfs_u64(*sysfs, "class/net/" + ifname + "/ifindex"));
    const std::uint32_t asked[] = {*ifindex};
    auto rows = source->stats(asked);
    std::vector<std::uint64_t> after;
    for (const auto field : kLinkStatsFields) {
      after.push_back(sysfs_u64(*sysfs, dir + std::string(field)));
    }
    REQUIRE(rows.size() == 1);
    REQUIRE(rows[0].ok());
    const LinkStats* row = &*rows[0];
    CHECK(row->count == kLinkStatsFields.size());  // every kernel with RTM_GETSTATS (4.7+)
    for (std::size_t i = 0; i < row->count; ++i) {
      INFO(kLinkStatsFields[i]);
      CHECK(before[i] <= row->values[i]);
      CHECK(row->values[i] <= after[i]);
    }
    if (ifname != "lo") CHECK(row->values[0] > 0);  // rx_packets: the traffic is counted
  }
}

TEST_CASE("several netdevs in one exchange; a missing one is ENODEV alone",
          "[kernel][link_stats]") {
  VethPair veth;
  auto source = make_live_link_stats_source();
  auto missing = source->ifindex("rtnosuch0");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == ENODEV);
  auto a = source->ifindex(kA);
  auto b = source->ifindex(kB);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  const std::uint32_t unused = std::max(*a, *b) + 1000;
  for (int round = 0; round < 3; ++round) {  // sequence numbers move on between exchanges
    const std::vector<std::uint32_t> asked{*b, unused, *a, 1};
    auto rows = source->stats(asked);
    REQUIRE(rows.size() == 4);
    REQUIRE(rows[0].ok());
    CHECK(rows[0]->ifindex == *b);
    REQUIRE_FALSE(rows[1].ok());
    CHECK(rows[1].error().code == ENODEV);
    REQUIRE(rows[2].ok());
    CHECK(rows[2]->ifindex == *a);
    REQUIRE(rows[3].ok());
    CHECK(rows[3]->ifindex == 1);  // lo
  }
}

TEST_CASE("collect_netdev_sysfs takes a live netdev's statistics from the dump",
          "[kernel][link_stats]") {
  if (!have_private_sysfs()) return;
  VethPair veth;
  const auto sysfs = make_directory_file_source("/sys");
  auto links = make_live_link_stats_source();
  testing::UnsupportedEthtoolSource ethtool;
  CollectContext ctx{*sysfs, ethtool, {}};
  ctx.link_stats = links.get();
  Snapshot snap = testing::with_port_netdevs({kA});

  collect_netdev_sysfs(ctx, snap);
  Snapshot by_files = snap;
  by_files.netdevs.clear();
  by_files.sources.clear();
  ctx.link_stats = nullptr;
  collect_netdev_sysfs(ctx, by_files);

  REQUIRE(snap.netdevs.size() == 1);
  REQUIRE(by_files.netdevs.size() == 1);
  const SourceStatus& status = snap.sources.at(0);
  INFO("status: " << status.message);
  CHECK(status.state == SourceState::ok);
  CHECK(status.message.find("statistics from sysfs") == std::string::npos);
  const CounterMap& dumped = snap.netdevs[0].statistics;
  const CounterMap& read = by_files.netdevs[0].statistics;
  REQUIRE(dumped.size() == kLinkStatsFields.size());
  // The same names as the files; every value at most the files' (read after it).
  REQUIRE(*dumped.names() == *read.names());
  for (const auto& [name, value] : dumped) {
    INFO(name);
    CHECK(value <= read.at(name));
  }
}

TEST_CASE("a netdev made again under its name is read by its new ifindex", "[kernel][link_stats]") {
  if (!have_private_sysfs()) return;
  const auto sysfs = make_cached_file_source("/sys");  // as the exporter reads the live host
  auto links = make_live_link_stats_source();
  testing::UnsupportedEthtoolSource ethtool;
  CollectContext ctx{*sysfs, ethtool, {}};
  ctx.link_stats = links.get();
  auto collect = [&] {
    Snapshot snap = testing::with_port_netdevs({kA});
    sysfs->begin_pass();
    collect_netdev_sysfs(ctx, snap);
    return snap;
  };
  std::uint32_t before = 0;
  {
    VethPair veth;
    const Snapshot first = collect();
    REQUIRE(first.netdevs.size() == 1);
    CHECK(first.netdevs[0].statistics.size() == kLinkStatsFields.size());
    before = links->ifindex(kA).value();
  }
  VethPair again;
  const std::uint32_t after = links->ifindex(kA).value();
  REQUIRE(after != before);
  // The first pass after finds the held files of the old netdev gone; the next reads the new one.
  (void)collect();
  const Snapshot snap = collect();
  REQUIRE(snap.netdevs.size() == 1);
  const SourceStatus& status = snap.sources.at(0);
  INFO("status: " << status.message);
  CHECK(status.state == SourceState::ok);
  CHECK(status.message.find("statistics from sysfs") == std::string::npos);
  CHECK(snap.netdevs[0].statistics.size() == kLinkStatsFields.size());
}

}  // namespace
}  // namespace rdmatop
