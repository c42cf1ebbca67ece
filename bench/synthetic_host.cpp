#include "bench/synthetic_host.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <string>

#include "collector/collect.h"

namespace rdmatop::bench {

namespace {

/// Deterministic per-counter growth per second, so rates are plausible and non-zero.
std::uint64_t growth(const std::string& name) {
  return std::hash<std::string>{}(name) % 997 + 1;
}

/// Bytes and packets moved, not dropped, paused, marked or in error: what grows on a healthy
/// host. By name, over the mlx5 fixture's sysfs and `ethtool -S` names.
bool is_traffic(const std::string& name) {
  const auto has = [&name](const char* part) { return name.find(part) != std::string::npos; };
  const bool moved = has("bytes") || has("packets") || has("_data") || has("pkts");
  const bool trouble = has("err") || has("drop") || has("discard") || has("pause") || has("cnp") ||
                       has("ecn") || has("out_of") || has("size") || has("frag") || has("jabber") ||
                       has("retr") || has("timeout") || has("congest") || has("buffer") ||
                       has("seq");
  return moved && !trouble;
}

void grow(CounterMap& counters, std::uint64_t seconds, Growth mode) {
  for (auto&& [name, value] : counters) {
    if (mode == Growth::every_counter || is_traffic(name)) value += growth(name) * seconds;
  }
}

}  // namespace

FixturePort load_fixture_port() {
  const std::string host = std::string(RDMATOP_SOURCE_DIR) + "/tests/fixtures/hosts/mlx5";
  auto sysfs = make_directory_file_source(host + "/sys");
  auto ethtool = make_dump_ethtool_source(host + "/ethtool");
  const CollectContext ctx{*sysfs, *ethtool, {}};
  Snapshot snap = collect_snapshot(ctx, 1);
  DeviceSample dev = snap.devices.at(0);
  dev.ports.resize(1);
  for (const auto& nd : snap.netdevs) {
    if (nd.name == dev.ports[0].netdev) return {dev, nd};
  }
  std::fprintf(stderr, "fixture netdev missing\n");
  std::exit(1);
}

Snapshot synthetic_host(const FixturePort& port, int ports, std::int64_t t, Growth mode) {
  Snapshot snap;
  snap.taken = std::chrono::steady_clock::time_point(std::chrono::seconds(t));
  snap.wall = std::chrono::system_clock::time_point(std::chrono::seconds(1'700'000'000 + t));
  const auto seconds = static_cast<std::uint64_t>(t);
  for (int i = 0; i < ports; ++i) {
    DeviceSample d = port.device;
    d.name = "mlx5_" + std::to_string(i);
    d.ports[0].netdev = "eth" + std::to_string(i);
    grow(d.ports[0].hw_counters, seconds, mode);
    grow(d.ports[0].counters, seconds, mode);
    NetdevSample n = port.netdev;
    n.name = d.ports[0].netdev;
    grow(n.ethtool, seconds, mode);
    snap.devices.push_back(std::move(d));
    snap.netdevs.push_back(std::move(n));
  }
  return snap;
}

double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

}  // namespace rdmatop::bench
