// Scenarios: what the fabric simulator plays. A scenario is data (YAML, docs/scenarios.md): a
// list of phases, each lasting a simulated duration and setting the conditions of some ports
// (load, pause occupancy, loss, link state, ...), plus the findings it is expected to produce.
// Parsing is pure (text in, Scenario or Error out).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "collector/model/result.h"

namespace rdmatop::sim {

/// The largest `within_ticks` an expectation may ask for (as `demo --ticks` is bounded).
inline constexpr int kMaxWithinTicks = 1'000'000;

/// The conditions of one port during a phase. Defaults describe a healthy, moderately loaded
/// lossless RoCE port; a phase only names what differs. Fractions are 0..1.
struct PortConditions {
  double load = 0.35;                 ///< RoCE utilisation of the line, each direction
  double rx_delivery = 1.0;           ///< share of the offered receive traffic the NIC takes in
  double tx_pause = 0.001;            ///< time share this NIC pauses the peer (RoCE priority)
  double rx_pause = 0.002;            ///< time share the peer pauses this NIC (RoCE priority)
  bool pause_lifts = true;            ///< false: pause never goes XOFF -> XON (deadlock)
  double storm_warnings_per_min = 0;  ///< NIC pause-storm watchdog, minor watermark
  double storm_errors_per_min = 0;    ///< watchdog critical: the NIC stopped sending pause
  double ecn_marked = 2e-4;           ///< share of received RoCE packets that arrive CE-marked
  bool np_enabled = true;             ///< the notification point answers CE marks with CNPs
  double rp_ignored = 0;              ///< share of received CNPs the reaction point ignores
  double loss = 0;                    ///< share of RoCE packets lost on the path (both directions)
  double ack_timeouts_per_s = 0;
  double retry_exceeded_per_min = 0;
  double rnr_retry_exceeded_per_min = 0;
  double rnr_naks_received_per_s = 0;  ///< RNR NAKs the port's requesters receive and retry
  double out_of_buffer_per_s = 0;      ///< RDMA receive queue empty (no WQE posted)
  double lossless_drops_per_s = 0;     ///< drops on the lossless priority (buffer overflow)
  bool link_up = true;
  double pre_fec_ber = 1e-9;    ///< corrected bits per received bit
  double fec_lane_skew = 0.25;  ///< share of the corrected bits on lane 0 of 4 (0.25: even)
  double symbol_errors_per_s = 0;
  double crc_errors_per_s = 0;
  double oversize_frames_per_s = 0;  ///< frames longer than our MTU (peer MTU larger)
  bool routable_gid = true;          ///< false: the netdev has no IP, only link-local GIDs
  bool pfc = true;                   ///< PFC enabled on the RoCE priority
  /// 802.3x link-level pause on (`ethtool -A rx on tx on`): the port's pause is then link pause.
  bool global_pause = false;
  double pcie_errors_per_s = 0;  ///< PCIe signal integrity errors (NIC receive side)
  double pcie_stalled = 0;       ///< share of seconds with outbound PCIe reads stalled > 30%
  // IB PMA PortCounters errors (ports/<n>/counters); they saturate at their legacy widths.
  double pma_rcv_errors_per_s = 0;          ///< PortRcvErrors (16-bit)
  double pma_xmit_discards_per_s = 0;       ///< PortXmitDiscards (16-bit)
  double pma_xmit_wait_per_s = 0;           ///< PortXmitWait ticks (32-bit)
  double pma_link_recoveries_per_min = 0;   ///< LinkErrorRecoveryCounter (8-bit)
  double pma_integrity_errors_per_min = 0;  ///< LocalLinkIntegrityErrors (4-bit)
  std::uint32_t mtu = 4200;
  // Firmware and devlink health of the port's device (each simulated device has one port).
  std::string fw_running;              ///< running fw.version; "" = the NIC's own (host_model.cpp)
  std::string fw_stored;               ///< stored (flashed) fw.version; "" = the running one
  double fw_errors_per_min = 0;        ///< devlink `fw` reporter errors (firmware syndromes)
  double fw_fatal_errors_per_min = 0;  ///< devlink `fw_fatal` reporter errors (device resets)
  bool health_recovers = true;         ///< false: a reporter that saw an error stays in error
  /// false: the device has no devlink instance to show (a kernel or container without the
  /// devlink family): the firmware identity is then only in sysfs fw_ver / board_id.
  bool devlink = true;
  /// mlx5 pfc-prevention-tout tunable in ms: 0 disabled, 65535 auto (100 ms), else 80..8000.
  std::uint16_t pfc_storm_prevention_ms = 65535;

  bool operator==(const PortConditions&) const = default;
};

/// Port conditions set by a phase: `selector` is "*", a device ("mlx5_0") or "device/port".
struct PortOverride {
  std::string selector;
  std::vector<std::pair<std::string, std::string>> settings;  ///< key -> YAML scalar, validated
};

struct Phase {
  std::string name;
  double duration_s = 0;
  std::vector<PortOverride> ports;
  std::vector<std::string> reload;  ///< devices whose driver reloads as the phase starts
};

/// A rule the scenario must make fire (warning or critical), checked by the scenario tests.
struct Expectation {
  std::string alert;
  std::string device;
  std::optional<std::uint32_t> port;  ///< absent: a device-level alert (no port label checked)
  std::optional<int> priority;
  int within_ticks = 0;  ///< at the scenario's interval, counted from the first tick; <= 1e6
  std::string target;    ///< probe alerts: the probe stream's target (device/port then unused)
  std::optional<std::uint32_t> pid;  ///< process alerts: the finding's `pid` label
};

/// A process holding RDMA objects on the simulated host (host readiness, `processes:`). The
/// simulator shows it where a real host does: as the owner of objects in the RDMA netlink
/// resource dumps (nldev_render.h) and as /proc/<pid>/{comm,limits,status} (process_render.h).
struct SimProcess {
  std::uint32_t pid = 0;
  std::string comm;                  ///< 1..15 characters (TASK_COMM_LEN 16 with the NUL)
  std::vector<std::string> devices;  ///< RDMA devices it holds objects on
  std::uint32_t qps = 1, cqs = 1, mrs = 1, pds = 1;  ///< objects on each of its devices
  std::optional<std::uint64_t> memlock_bytes;  ///< soft = hard RLIMIT_MEMLOCK; none: unlimited
  bool cap_ipc_lock = false;
  std::uint64_t pinned_bytes = 0;  ///< VmPin (its MRs' pinned pages); a multiple of 4 KiB
  std::string cpus;                ///< Cpus_allowed_list, e.g. "0-15"; "" = every CPU
  /// Share of its ports' transport error counters its QPs carry (0..1). Above 0 the ports of its
  /// devices (mlx5 only: the one driver that binds) run QP counters in auto mode by PID, so
  /// every user process there has a bound counter; those without a share split the rest.
  double counter_share = 0;
};

/// A counter's starting value on some ports (model counter names, docs/scenarios.md).
struct StartCounter {
  std::string selector;
  std::string counter;
  double value = 0;
};

struct Scenario {
  std::string name;
  std::string description;             ///< one line, for `rdmatop demo --list`
  double interval_s = 5;               ///< simulated seconds per tick
  std::vector<PortOverride> baseline;  ///< applies to every phase, under the phase's own
  std::vector<StartCounter> start;
  std::vector<Phase> phases;
  std::vector<Expectation> expect;
  bool expect_quiet = false;            ///< no warning or critical finding may appear
  std::vector<std::string> expect_not;  ///< alerts that must never fire during the scenario
  /// Optional NICs added to the default host for this scenario (host_model.h extra_nics()).
  std::vector<std::string> nics;
  std::vector<SimProcess> processes;  ///< RDMA processes on the host, for the whole timeline
  /// PIDs no warning or critical finding may name (a well-configured process).
  std::vector<std::uint32_t> expect_quiet_pids;

  double duration_s() const;
};

/// Parses one scenario file. `origin` names it in errors ("pfc-storm.yaml").
Result<Scenario> parse_scenario(const std::string& text, const std::string& origin);

/// Applies one override's settings to `conditions`; errors name the unknown key or bad value.
Result<bool> apply_settings(const PortOverride& override_, PortConditions& conditions);

/// True when `selector` names this port.
bool selector_matches(const std::string& selector, const std::string& device, std::uint32_t port);

/// Plays `parts` one after the other as one timeline ("healthy,pfc-storm"). The chain takes
/// the first part's interval, the union of the parts' `nics` and their processes (by pid);
/// expectations are dropped (their tick counts would not hold).
Scenario chain_scenarios(const std::vector<Scenario>& parts);

/// Names of the model counters a scenario may start at a given value (`start:`).
const std::vector<std::string>& model_counter_names();

}  // namespace rdmatop::sim
