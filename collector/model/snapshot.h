// The data model every output reads: one immutable Snapshot per tick, all sources merged.
//
// Rules of the model:
//  * every value is kept under its raw source name (the sysfs file name, the ethtool string);
//  * a counter the driver does not have is absent from its map, never 0;
//  * each source reports its own status (ok / no data / error + message) and duration, so one
//    broken source never hides the others.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "collector/model/counter_map.h"
#include "collector/model/host_config.h"
#include "collector/model/probe_sample.h"

namespace rdmatop {

enum class SourceState : std::uint8_t {
  ok,       ///< read completely
  no_data,  ///< the subsystem is absent here (no RDMA devices, no devlink): not an error
  error,    ///< something went wrong; `message` says what; other sources are unaffected
};

/// Outcome of reading one source for one object during one tick.
struct SourceStatus {
  std::string source;  ///< "sysfs", "netdev", "ethtool", "ethtool-pause", ...
  std::string target;  ///< what was read: "mlx5_0", "mlx5_0/1", "ens1f0np0"; empty = host-wide
  SourceState state = SourceState::ok;
  std::string message;  ///< empty when ok
  std::chrono::nanoseconds duration{0};

  bool operator==(const SourceStatus&) const = default;
};

/// One entry of a port's GID table (unpopulated entries are skipped, not stored).
struct GidEntry {
  std::uint32_t index = 0;
  std::string gid;     ///< as sysfs prints it: 8 groups of 4 hex digits
  std::string type;    ///< "RoCE v2", "IB/RoCE v1"; empty if unreadable
  std::string netdev;  ///< from gid_attrs/ndevs; empty if unreadable

  bool operator==(const GidEntry&) const = default;
};

/// The port's QP counter mode (`rdma statistic qp mode`; RDMA netlink STAT_GET with
/// STAT_RES = QP and a STAT_MODE, nldev.c stat_get_doit_qp).
struct QpCounterMode {
  std::uint32_t mode = 0;       ///< enum rdma_nl_counter_mode: 0 none, 1 auto, 2 manual
  std::uint32_t auto_mask = 0;  ///< auto mode's criteria, RDMA_COUNTER_MASK_*: 1 QP type, 2 PID

  bool operator==(const QpCounterMode&) const = default;
};

/// A counter bound to QPs of one port (`rdma statistic qp show`; RDMA netlink STAT_GET dump with
/// STAT_RES = QP, nldev.c fill_res_counter_entry). The port's own hw_counters already include
/// what its bound counters counted (stat_get_doit_default_counter adds them back).
struct BoundCounter {
  std::uint32_t id = 0;                 ///< STAT_COUNTER_ID, `cntn`
  std::uint32_t mode = 0;               ///< the counter's mode: 1 auto, 2 manual
  std::optional<std::uint8_t> qp_type;  ///< auto mode by QP type: enum ib_qp_type (2 = RC)
  std::optional<std::uint32_t> pid;     ///< auto mode by PID: the owning process
  std::string kern_name;                ///< ... or the kernel user owning it
  std::string comm;                     ///< the owner's name (/proc/<pid>/comm), when known
  std::vector<std::uint32_t> qpns;      ///< bound QPs (RES_LQPN), in the kernel's order
  CounterMap hw_counters;               ///< raw driver names, like PortSample::hw_counters

  bool operator==(const BoundCounter&) const = default;
};

/// One RDMA port as read from class/infiniband/<dev>/ports/<n>.
struct PortSample {
  std::uint32_t port = 0;
  std::optional<std::uint32_t> state_id;  ///< 4 for "4: ACTIVE"
  std::string state;                      ///< "ACTIVE"
  std::optional<std::uint32_t> phys_state_id;
  std::string phys_state;  ///< "LinkUp"
  std::string rate_text;   ///< "100 Gb/sec (4X EDR)", verbatim
  std::optional<double> rate_gbps;
  std::string link_layer;  ///< "Ethernet" for RoCE
  std::string netdev;      ///< the port's netdev (gid_attrs/ndevs/0 or device/net); may be empty
  std::vector<GidEntry> gids;
  /// True when the whole GID table was read (every slot listed, every populated entry's gid and
  /// type read): an empty `gids` then means "no address", not "not read". A table that was not
  /// read, or only in part, is absent, never "0 routable GIDs".
  bool gid_table_read = false;
  /// How long before this snapshot the GID table and link_layer were read from sysfs: zero when
  /// read in this tick; a caching source (make_cached_file_source) serves them until they
  /// change or its refresh period ends. Stale is not current: outputs show this next to them.
  std::chrono::nanoseconds gid_table_age{0};
  CounterMap counters;     ///< ports/<n>/counters (IB PMA), raw: *_data are still octets/4
  CounterMap hw_counters;  ///< ports/<n>/hw_counters, raw driver names (opaque strings)
  /// hw_counters/lifespan (ms): reads closer together than this return cached values.
  std::optional<std::uint32_t> hw_counters_lifespan_ms;
  /// Which source served `hw_counters`: "netlink" (RDMA netlink STAT_GET), "sysfs", or empty
  /// when none did. Both give the same raw names and values.
  std::string counter_source;
  /// Optional counters (IB_STAT_FLAG_OPTIONAL) -> enabled, from RDMA netlink; empty when unknown
  /// or when the driver has none.
  std::map<std::string, bool, std::less<>> optional_counters;
  /// QP counter mode and bound counters, from RDMA netlink; none/empty when not read.
  std::optional<QpCounterMode> qp_counter_mode;
  std::vector<BoundCounter> bound_counters;  ///< sorted by id

  bool operator==(const PortSample&) const = default;
};

/// One RDMA device as read from class/infiniband/<dev>.
struct DeviceSample {
  std::string name;    ///< "mlx5_0"
  std::string driver;  ///< "mlx5", "bnxt_re", "irdma", "rxe", or "" when unknown
  std::string node_type;
  std::string fw_ver;  ///< empty when the driver has none (rxe)
  std::string node_guid;
  std::string sys_image_guid;
  std::string hca_type;
  std::string board_id;
  std::string hw_rev;
  std::string pci_address;  ///< basename of the `device` link, empty for virtual devices
  CounterMap hw_counters;   ///< device-scope hw_counters (mlx5), raw
  /// RDMA resource summary from netlink ("qp", "cq", "mr", "pd", "cm_id", "ctx", "srq" ->
  /// objects in use); empty when not read.
  CounterMap resources;
  std::vector<PortSample> ports;          ///< sorted by port number
  std::optional<DevlinkInfo> devlink;     ///< none: no devlink instance (rxe) or not read
  std::optional<std::int32_t> numa_node;  ///< PCI device's numa_node; none when -1/virtual
  std::vector<IrqSample> irqs;            ///< the NIC's MSI-X vectors; empty when not read
  /// How long before this snapshot the identity (node_type, fw_ver, GUIDs, hca_type, board_id,
  /// hw_rev), the parent links (PCI address, driver), numa_node and the MSI IRQ list were read:
  /// zero when read in this tick (see PortSample::gid_table_age).
  std::chrono::nanoseconds static_age{0};

  bool operator==(const DeviceSample&) const = default;
};

/// Driver facts from ETHTOOL_GDRVINFO (or an `ethtool -i` dump offline).
struct DriverInfo {
  std::string driver;  ///< "mlx5_core"
  std::string version;
  std::string fw_version;  ///< "16.35.2000 (MT_0000000012)"
  std::string bus_info;    ///< "0000:3b:00.0"

  bool operator==(const DriverInfo&) const = default;
};

/// Link-level (802.3x) pause configuration and the standard ethtool-netlink pause statistics.
struct PauseInfo {
  std::optional<bool> autoneg, rx, tx;
  std::optional<std::uint64_t> rx_frames, tx_frames;

  bool operator==(const PauseInfo&) const = default;
};

/// One network device backing an RDMA port, as read from class/net/<if> and ethtool.
struct NetdevSample {
  std::string name;
  std::optional<std::uint32_t> mtu;
  std::string operstate;  ///< "up", "down", ...
  std::optional<std::uint64_t> carrier_changes;
  std::optional<std::int64_t> speed_mbps;  ///< -1 (unknown) is kept as the kernel reports it
  std::string address;                     ///< MAC
  CounterMap statistics;                   ///< class/net/<if>/statistics/*
  CounterMap ethtool;                      ///< `ethtool -S` strings -> values
  std::optional<DriverInfo> driver;
  std::optional<PauseInfo> pause;
  std::optional<DcbInfo> dcb;  ///< none: no dcbnl support (EOPNOTSUPP) or not read
  /// mlx5 PFC storm prevention (ETHTOOL_PFC_PREVENTION_TOUT tunable), ms; 0 = disabled
  std::optional<std::uint16_t> pfc_prevention_tout_ms;
  /// How long before this snapshot `address` was read (see PortSample::gid_table_age).
  std::chrono::nanoseconds static_age{0};

  bool operator==(const NetdevSample&) const = default;
};

/// Everything collected in one tick. Immutable once published; share as shared_ptr<const>.
struct Snapshot {
  std::uint64_t seq = 0;
  std::chrono::steady_clock::time_point taken{};  ///< monotonic, for rates
  std::chrono::system_clock::time_point wall{};   ///< for display and timestamps
  std::string hostname;
  std::vector<DeviceSample> devices;  ///< sorted by name
  std::vector<NetdevSample> netdevs;  ///< sorted by name; only netdevs of RDMA ports
  std::vector<SourceStatus> sources;  ///< in collection order
  /// Active probe results (`rdmatop probe`, pingmesh); empty when no prober runs.
  std::vector<ProbeTargetSample> probes;  ///< sorted by (target, transport, traffic_class)
  std::optional<ProberCost> prober;       ///< present when a prober runs
  /// Processes holding RDMA resources (host readiness); empty when none or not read.
  std::vector<RdmaProcess> rdma_processes;  ///< sorted by pid

  bool operator==(const Snapshot&) const = default;
};

const char* to_string(SourceState state);

/// The snapshot's netdev named `name`; nullptr for an empty name (a port without a netdev) or
/// a netdev the snapshot does not hold.
const NetdevSample* find_netdev(const Snapshot& snapshot, const std::string& name);

}  // namespace rdmatop
