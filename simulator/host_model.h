// The simulated host and its counter model: pure arithmetic, no I/O. Each port keeps its own
// accumulators (model counter names, scenario.h model_counter_names) that advance with the
// port's conditions over a simulated interval; tree_render.cpp prints them in each driver's
// names and widths. Rates follow line speed and the traffic model described in
// docs/scenarios.md; pause time and pause frames move together (one frame per refresh).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "simulator/scenario.h"

namespace rdmatop::sim {

enum class NicKind : std::uint8_t { mlx5, bnxt_re, rxe };

/// The fixed facts of one simulated RDMA port and its netdev.
struct PortSpec {
  NicKind kind = NicKind::mlx5;
  std::string device;  ///< ib device, "mlx5_0"
  std::uint32_t port = 1;
  std::string netdev;    ///< "ens1f0np0"
  std::string pci;       ///< PCI function, "0000:3b:00.0"
  std::string pci_path;  ///< parent path under devices/, "pci0000:3a/0000:3a:00.0"
  std::string mac;
  std::string ipv4;
  std::uint32_t ifindex = 2;
  double gbps = 100;
  std::string fw;  ///< firmware version the NIC runs unless a scenario says otherwise
  std::string node_desc;
  std::string psid;             ///< mlx5 board id (sysfs board_id, devlink fixed fw.psid); else ""
  std::string serial;           ///< devlink serial number; "" for rxe (no devlink instance)
  std::int32_t numa_node = -1;  ///< PCI numa_node; -1 = none (rxe: no PCI function of its own)
};

/// The default host: a dual-port ConnectX-6 Dx (mlx5_0, mlx5_1) and a Broadcom bnxt_re0.
std::vector<PortSpec> default_host();

/// NICs a scenario may add with `nics:` (docs/scenarios.md): "mlx5_2", a second ConnectX-6 Dx
/// card, and "rxe0", Soft-RoCE over a virtio_net interface.
const std::vector<PortSpec>& extra_nics();
const PortSpec* find_extra_nic(const std::string& device);

/// The default host plus the scenario's extra NICs (unknown names are skipped: the parser
/// refuses them).
std::vector<PortSpec> scenario_host(const Scenario& scenario);

/// The RoCE traffic class of the simulated fabric (DSCP 26 -> priority 3, PFC on 3).
inline constexpr int kRocePriority = 3;

struct PortState {
  PortSpec spec;
  PortConditions conditions;
  std::map<std::string, double> counters;  ///< model counter name -> running total
  std::uint64_t reloads = 0;               ///< driver reloads so far (counters restarted)
  /// Accumulators of the port's simulated probe streams (probe_model.h); a driver reload does
  /// not touch them (the prober reconnects, its counts go on).
  std::map<std::string, double> probes;
};

/// The simulated host's CPUs: two NUMA nodes of 16 CPUs each, node N holding CPUs
/// 16N..16N+15 (sysfs devices/system/node/node<N>/cpulist).
inline constexpr std::uint32_t kNumaNodes = 2;
inline constexpr std::uint32_t kCpusPerNode = 16;

struct HostModel {
  std::vector<PortState> ports;
  std::vector<SimProcess> processes;  ///< the scenario's RDMA processes
  double elapsed_s = 0;               ///< simulated time since the start
};

HostModel make_host_model(std::vector<PortSpec> specs);

/// Sets every port's conditions for the next interval (link transitions count here).
void set_conditions(HostModel& host, const std::vector<PortConditions>& conditions);

/// Advances every port by `dt_s` simulated seconds under its current conditions.
void advance(HostModel& host, double dt_s);

/// The firmware version the port's device runs, and the one flashed (devlink stored).
std::string running_fw(const PortState& port);
std::string stored_fw(const PortState& port);

/// A driver reload of `device`: its counters restart from zero (docs/scenarios.md).
void reload_driver(HostModel& host, const std::string& device);

/// RoCE path MTU for a netdev MTU: the largest of 256..4096 that fits after the RoCE headers
/// (iboe_get_mtu, include/rdma/ib_addr.h: GRH 40 + UDP 8 + BTH 12 + XRC 4 + AtomicETH 28 +
/// ICRC 4 = 96 bytes).
std::uint32_t roce_mtu(std::uint32_t netdev_mtu);

/// Bytes on the wire of a full-size RoCE v2 packet: payload + Ethernet 14 + IPv4 20 + UDP 8 +
/// BTH 12 + ICRC 4 + FCS 4.
double roce_frame_bytes(std::uint32_t netdev_mtu);

}  // namespace rdmatop::sim
