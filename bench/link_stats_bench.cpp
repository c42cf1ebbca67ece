// The netdev collector's tick on a live host, its statistics read the two ways it can: the 24
// files of class/net/<if>/statistics/ (held open, read in one io_uring batch per pass, as the
// caching source does) or one RTM_GETSTATS request per netdev, all in one exchange, plus a
// SIOCGIFINDEX per netdev (collector/source/link_stats_source.h).
//
//   rdmatop_bench_link_stats [--veth N] [--ports K] [--iterations 2000]
//
// With --veth N (root) the bench first enters a private network and mount namespace, mounts
// that namespace's sysfs on /sys and makes N veth pairs, so it measures 2N netdevs of a known
// kind without touching the host's; without it, every netdev of this namespace except lo.
// --ports K collects only the first K of them (sorted by name), as on a host whose RDMA ports are
// a few of many netdevs (containers' veths).
// Prints the CPU time of the measuring thread per tick each way, per netdev, and the ratio.
// Each tick is checked to give every netdev 24 counters, so a failing way cannot look fast.
#include <sched.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/synthetic_host.h"
#include "collector/collect.h"
#include "collector/source/cached_file_source.h"
#include "collector/source/link_stats_source.h"
#include "tests/support/port_netdevs.h"
#include "tests/support/private_sysfs.h"
#include "tests/support/unsupported_ethtool_source.h"

using namespace rdmatop;

namespace {

void must(bool ok, const std::string& what) {
  if (ok) return;
  std::fprintf(stderr, "%s: %s\n", what.c_str(), std::strerror(errno));
  std::exit(1);
}

/// N veth pairs in a private network namespace whose sysfs is on /sys (private mounts).
void make_private_veths(int pairs) {
  must(::unshare(CLONE_NEWNET) == 0, "unshare (needs root)");
  if (const auto problem = testing::mount_private_sysfs()) {
    std::fprintf(stderr, "%s\n", problem->c_str());
    std::exit(1);
  }
  for (int i = 0; i < pairs; ++i) {
    const std::string a = "bva" + std::to_string(i);
    const std::string b = "bvb" + std::to_string(i);
    const std::string cmd = "ip link add " + a + " type veth peer name " + b + " && ip link set " +
                            a + " up && ip link set " + b + " up";
    must(std::system(cmd.c_str()) == 0, cmd);
  }
}

/// ns per tick of collect_netdev_sysfs with `links` (nullptr: the statistics files).
double measure(const std::vector<std::string>& netdevs, LinkStatsSource* links, int iterations) {
  const auto sysfs = make_cached_file_source("/sys");
  testing::UnsupportedEthtoolSource ethtool;
  CollectContext ctx{*sysfs, ethtool, {}};
  ctx.link_stats = links;
  const Snapshot shape = testing::with_port_netdevs(netdevs);
  auto tick = [&] {
    Snapshot snap = shape;
    sysfs->begin_pass();
    collect_netdev_sysfs(ctx, snap);
    for (const auto& netdev : snap.netdevs) {
      if (netdev.statistics.size() != 24) {
        std::fprintf(stderr, "%s: %zu statistics, not 24\n", netdev.name.c_str(),
                     netdev.statistics.size());
        std::exit(1);
      }
    }
    for (const auto& status : snap.sources) {
      if (links != nullptr && !status.message.empty()) {
        std::fprintf(stderr, "%s: %s\n", status.target.c_str(), status.message.c_str());
        std::exit(1);
      }
    }
  };
  for (int i = 0; i < 3; ++i) tick();  // files held, read-ahead planned
  const double start = bench::thread_cpu_ms() * 1e6;
  for (int i = 0; i < iterations; ++i) tick();
  return (bench::thread_cpu_ms() * 1e6 - start) / iterations;
}

}  // namespace

int main(int argc, char** argv) {
  int pairs = 0;
  std::size_t ports = 0;
  int iterations = 2000;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--veth") {
      pairs = std::atoi(argv[i + 1]);
    } else if (flag == "--ports") {
      ports = static_cast<std::size_t>(std::atoi(argv[i + 1]));
    } else if (flag == "--iterations") {
      iterations = std::atoi(argv[i + 1]);
    } else {
      std::fprintf(stderr, "unknown option %s\n", flag.c_str());
      return 2;
    }
  }
  if (pairs > 0) make_private_veths(pairs);
  std::vector<std::string> netdevs;
  for (const auto& entry : std::filesystem::directory_iterator("/sys/class/net")) {
    const std::string name = entry.path().filename();
    if (name != "lo" && std::filesystem::exists(entry.path() / "statistics"))
      netdevs.push_back(name);
  }
  std::sort(netdevs.begin(), netdevs.end());
  const std::size_t in_namespace = netdevs.size() + 1;  // and lo
  if (ports > 0 && ports < netdevs.size()) netdevs.resize(ports);
  if (netdevs.empty()) {
    std::fprintf(stderr, "no netdev but lo here; try --veth 8 as root\n");
    return 1;
  }
  const double files = measure(netdevs, nullptr, iterations);
  const auto links = make_live_link_stats_source();
  const double by_rtnetlink = measure(netdevs, links.get(), iterations);
  const double n = static_cast<double>(netdevs.size());
  std::printf(
      "%zu netdevs collected of %zu in the namespace, %d ticks each way, CPU of the measuring "
      "thread (user + system)\n",
      netdevs.size(), in_namespace, iterations);
  std::printf("statistics/ files:  %8.1f us per tick, %6.2f us per netdev\n", files / 1e3,
              files / 1e3 / n);
  std::printf("RTM_GETSTATS:       %8.1f us per tick, %6.2f us per netdev\n", by_rtnetlink / 1e3,
              by_rtnetlink / 1e3 / n);
  std::printf("ratio: rtnetlink / files = %.2f\n", by_rtnetlink / files);
  return 0;
}
