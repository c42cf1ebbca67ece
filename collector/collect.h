// Building one Snapshot: the collectors run in a fixed order (RDMA sysfs first, because it
// discovers the ports and their netdevs; then netdev sysfs and ethtool for those netdevs).
// Each collector records its own SourceStatus entries; none of them throws for environment
// problems, so one broken source never hides the others.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "collector/model/snapshot.h"
#include "collector/source/dcbnl_source.h"
#include "collector/source/devlink_source.h"
#include "collector/source/ethtool_source.h"
#include "collector/source/file_source.h"
#include "collector/source/link_stats_source.h"
#include "collector/source/rdma_netlink_source.h"

namespace rdmatop {

/// Which devices to read (--device / --exclude-device); empty include list = all.
struct DeviceFilter {
  std::vector<std::string> include;
  std::vector<std::string> exclude;
  bool accepts(const std::string& device) const;
};

/// Where per-port hardware counters come from (--counters).
enum class CounterSource : std::uint8_t {
  sysfs,        ///< hw_counters/ files only
  netlink,      ///< RDMA netlink only; a port it cannot serve has no hw counters
  auto_select,  ///< netlink, falling back to sysfs port by port
};

/// Everything a collector may touch; all of it injectable.
struct CollectContext {
  const FileSource& sysfs;
  EthtoolSource& ethtool;
  DeviceFilter filter;
  RdmaNetlinkSource* netlink = nullptr;  ///< nullptr: not available (not the live host)
  CounterSource counters = CounterSource::sysfs;
  DevlinkSource* devlink = nullptr;    ///< nullptr: not read (not the live host)
  DcbSource* dcb = nullptr;            ///< nullptr: not read (not the live host)
  const FileSource* procfs = nullptr;  ///< /proc (--procfs-root); nullptr: not read
  /// Netdevs' statistics/ by rtnetlink, one exchange per tick; nullptr: read from sysfs (not
  /// the live host).
  LinkStatsSource* link_stats = nullptr;
};

/// What RDMA netlink served in one tick, merged into the sysfs walk.
struct NetlinkPortData {
  CounterMap counters;
  std::map<std::string, bool, std::less<>> optional_counters;
};
struct NetlinkData {
  std::map<std::pair<std::string, std::uint32_t>, NetlinkPortData> ports;  ///< (device, port)
  std::map<std::string, CounterMap> resources;                             ///< by device
};

/// The RDMA devices as RDMA netlink lists them (one RDMA_NLDEV_CMD_GET dump), read once per tick
/// and shared by the collectors that need device indexes; an error without ctx.netlink.
using RdmaDeviceList = Result<std::vector<NldevDevice>>;
RdmaDeviceList list_rdma_devices(const CollectContext& ctx);

/// Reads hw counters, optional-counter status and resource summaries by RDMA netlink for the
/// devices the filter accepts (nothing when ctx.counters is sysfs).
NetlinkData collect_rdma_netlink(const CollectContext& ctx, Snapshot& out,
                                 const RdmaDeviceList& devices);

/// Reads class/infiniband: devices, ports, GIDs, counters, hw_counters.
void collect_rdma_sysfs(const CollectContext& ctx, Snapshot& out);
/// The same, taking the hw counters of the ports in `netlink` from there instead of sysfs, and
/// the device names from `devices` (RDMA netlink's list, read once per tick anyway) when it has
/// any, so a live tick does not list class/infiniband: RDMA netlink and class/infiniband list
/// the same registered ib_devices (drivers/infiniband/core/nldev.c nldev_get_dumpit walks the
/// devices ib_device_register put in the class). Without them, class/infiniband is listed
/// (FileSource::list_current).
void collect_rdma_sysfs(const CollectContext& ctx, Snapshot& out, const NetlinkData& netlink,
                        const RdmaDeviceList* devices = nullptr);
/// Reads class/net/<if> for every netdev named by an RDMA port in `out`; its statistics from
/// ctx.link_stats where that serves it (the netdev's ifindex in sysfs and in this network
/// namespace the same, and the kernel answered its RTM_GETSTATS), from statistics/ otherwise,
/// saying why.
void collect_netdev_sysfs(const CollectContext& ctx, Snapshot& out);
/// Reads ethtool stats, driver info and pause data for every netdev in `out`.
void collect_ethtool(const CollectContext& ctx, Snapshot& out);

/// Matches devlink instances (info + health reporters) to the RDMA devices by PCI address.
void collect_devlink(const CollectContext& ctx, Snapshot& out);
/// Reads IEEE DCB (PFC, ETS, APP table, trust) for every netdev in `out`.
void collect_dcb(const CollectContext& ctx, Snapshot& out);

/// NUMA node and MSI interrupt counts of every PCI RDMA device (host readiness).
void collect_readiness(const CollectContext& ctx, Snapshot& out);

/// Processes holding RDMA objects (QP/CQ/MR/PD dumps by RDMA netlink) with their memlock limit,
/// pinned memory and CPU NUMA nodes from procfs (host readiness).
/// Returns the threads it folded into their process (the kernel names the thread that created
/// an object), thread ID -> process ID.
using ThreadProcesses = std::map<std::uint32_t, std::uint32_t>;
ThreadProcesses collect_rdma_processes(const CollectContext& ctx, Snapshot& out,
                                       const RdmaDeviceList& devices);
/// Reads each port's QP counter mode and its QP-bound counters by RDMA netlink (nothing without
/// it); run after collect_rdma_processes, whose process names and thread folding it reuses.
void collect_qp_counters(const CollectContext& ctx, Snapshot& out, const RdmaDeviceList& devices,
                         const ThreadProcesses& threads = {});

/// Runs all collectors in order and stamps the snapshot (seq, clocks, hostname).
Snapshot collect_snapshot(const CollectContext& ctx, std::uint64_t seq);
/// The collectors of collect_snapshot, in its order, into `snap` (not stamped). `after_rdma`
/// runs after the RDMA sysfs walk, before the netdevs of its ports are read: a capture sets the
/// port -> netdev links its files print there (collector/capture/capture_host.h).
void collect_all(const CollectContext& ctx, Snapshot& snap,
                 const std::function<void(Snapshot&)>& after_rdma = {});

/// Adds `part` to a status message, "; " between parts (a source's several problems in one line).
void append_note(std::string& note, std::string_view part);

/// Times a unit of collection work and turns its outcome into a SourceStatus.
class StatusTimer {
 public:
  StatusTimer(std::string source, std::string target);
  SourceStatus finish(SourceState state, std::string message = {}) const;

 private:
  std::string source_;
  std::string target_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace rdmatop
