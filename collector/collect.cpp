#include "collector/collect.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <memory>
#include <string>

#include "collector/snapshot_provider.h"
#include "collector/vanished_tracker.h"

namespace rdmatop {

bool DeviceFilter::accepts(const std::string& device) const {
  auto contains = [&](const std::vector<std::string>& list) {
    return std::find(list.begin(), list.end(), device) != list.end();
  };
  if (!include.empty() && !contains(include)) return false;
  return !contains(exclude);
}

StatusTimer::StatusTimer(std::string source, std::string target)
    : source_(std::move(source)),
      target_(std::move(target)),
      start_(std::chrono::steady_clock::now()) {}

SourceStatus StatusTimer::finish(SourceState state, std::string message) const {
  return SourceStatus{source_, target_, state, std::move(message),
                      std::chrono::steady_clock::now() - start_};
}

RdmaDeviceList list_rdma_devices(const CollectContext& ctx) {
  if (ctx.netlink == nullptr) return Error{ENODEV, "no RDMA netlink (not the live host)"};
  return ctx.netlink->devices();
}

Snapshot collect_snapshot(const CollectContext& ctx, std::uint64_t seq) {
  Snapshot snap;
  snap.seq = seq;
  snap.taken = std::chrono::steady_clock::now();
  snap.wall = std::chrono::system_clock::now();
  std::array<char, 256> host{};
  if (gethostname(host.data(), host.size() - 1) == 0) snap.hostname = host.data();
  collect_all(ctx, snap);
  return snap;
}

void collect_all(const CollectContext& ctx, Snapshot& snap,
                 const std::function<void(Snapshot&)>& after_rdma) {
  ctx.sysfs.begin_pass();
  ctx.ethtool.begin_pass();
  const RdmaDeviceList devices = list_rdma_devices(ctx);
  collect_rdma_sysfs(ctx, snap, collect_rdma_netlink(ctx, snap, devices), &devices);
  if (after_rdma) after_rdma(snap);
  collect_netdev_sysfs(ctx, snap);
  collect_ethtool(ctx, snap);
  collect_devlink(ctx, snap);
  collect_dcb(ctx, snap);
  collect_readiness(ctx, snap);
  const ThreadProcesses threads = collect_rdma_processes(ctx, snap, devices);
  collect_qp_counters(ctx, snap, devices, threads);
  if (std::string fallback = ctx.sysfs.read_fallback(); !fallback.empty()) {
    snap.sources.push_back(SourceStatus{
        "file-reads",
        "",
        SourceState::ok,
        "counter files read with one pread(2) each, not batched: " + std::move(fallback),
        {}});
  }
}

SnapshotProvider live_provider(const CollectContext& ctx) {
  // The tracker gives what vanished since an earlier tick a status (vanished_tracker.h).
  auto tracker = std::make_shared<VanishedTracker>();
  return [&ctx, tracker](std::uint64_t seq) -> std::optional<Snapshot> {
    Snapshot snapshot = collect_snapshot(ctx, seq);
    tracker->observe(snapshot);
    return snapshot;
  };
}

void append_note(std::string& note, std::string_view part) {
  if (!note.empty()) note += "; ";
  note += part;
}

}  // namespace rdmatop
