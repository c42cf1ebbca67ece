// Configuration and host facts collected next to the counters: devlink (firmware versions and
// health reporters), IEEE DCB (PFC, ETS, APP table), the mlx5 PFC storm-prevention tunable, and
// host readiness (who owns RDMA resources, interrupt counts, NUMA placement, memlock limits).
// Absent (nullopt / empty) always means "not provided here", never "zero" or "disabled".
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rdmatop {

/// One devlink health reporter (`devlink health show`).
struct DevlinkHealthReporter {
  std::string name;   ///< "fw", "fw_fatal", "tx", "rx", ...
  std::string state;  ///< "healthy" or "error"
  std::optional<std::uint64_t> error_count;
  std::optional<std::uint64_t> recover_count;
  std::optional<std::uint64_t> last_dump_ts_ms;  ///< DEVLINK_ATTR_HEALTH_REPORTER_DUMP_TS (ms)
  std::optional<std::uint64_t> grace_period_ms;
  std::optional<bool> auto_recover;
  std::optional<bool> auto_dump;

  bool operator==(const DevlinkHealthReporter&) const = default;
};

/// One devlink instance (`devlink dev info` + its health reporters).
struct DevlinkInfo {
  std::string bus_name;  ///< "pci"
  std::string dev_name;  ///< "0000:3b:00.0"
  std::string driver;
  std::string serial_number;
  std::string board_serial_number;
  /// Versions by name ("fw.version", "fw.psid", "board.id"): fixed (hardware), running
  /// (active now) and stored (flashed, active after reset). stored != running: activation pending.
  std::map<std::string, std::string, std::less<>> fixed, running, stored;
  std::vector<DevlinkHealthReporter> reporters;

  bool operator==(const DevlinkInfo&) const = default;
};

/// One IEEE DCB APP table entry (`dcb app show`): traffic matching (selector, protocol) gets
/// `priority`. Selector 5 = DSCP (IEEE_8021QAZ_APP_SEL_DSCP), protocol = DSCP value.
struct DcbAppEntry {
  std::uint8_t selector = 0;
  std::uint16_t protocol = 0;
  std::uint8_t priority = 0;

  bool operator==(const DcbAppEntry&) const = default;
};

/// IEEE 802.1Qaz/Qbb state of one netdev from rtnetlink dcbnl (DCB_CMD_IEEE_GET).
struct DcbInfo {
  std::optional<std::uint8_t> pfc_enabled;  ///< bit p set: PFC on for priority p
  std::optional<std::uint8_t> pfc_cap;
  std::optional<std::uint16_t> pfc_delay;
  std::vector<std::uint64_t> pfc_requests;     ///< per priority (8) or empty
  std::vector<std::uint64_t> pfc_indications;  ///< per priority (8) or empty
  std::vector<std::uint8_t> ets_prio_tc;       ///< priority -> traffic class (8) or empty
  std::vector<std::uint8_t> ets_tc_bw;         ///< tc -> bandwidth % (8) or empty
  std::vector<std::uint8_t> ets_tc_tsa;        ///< tc -> transmission selection algorithm
  std::vector<DcbAppEntry> app;
  std::string trust;  ///< "dscp" / "pcp" where the driver says; empty when unknown

  bool operator==(const DcbInfo&) const = default;
};

/// Interrupt count of one IRQ of an RDMA NIC (/proc/interrupts, summed over CPUs).
struct IrqSample {
  std::uint32_t irq = 0;
  std::string name;  ///< the action name, e.g. "mlx5_comp3@pci:0000:3b:00.0"
  std::uint64_t count = 0;

  bool operator==(const IrqSample&) const = default;
};

/// A process that owns RDMA resources (RDMA netlink RES_QP/RES_CQ/RES_MR with PIDs).
struct RdmaProcess {
  std::uint32_t pid = 0;
  std::string comm;  ///< /proc/<pid>/comm, or the kernel's RES attribute name for kernel users
  std::map<std::string, std::uint32_t, std::less<>> qps, cqs, mrs;  ///< device -> objects held
  std::map<std::string, std::uint32_t, std::less<>> pds;            ///< device -> PDs held
  /// VmPin of /proc/<pid>/status in bytes: pages pinned (RDMA memory registrations count here,
  /// against RLIMIT_MEMLOCK); nullopt when unreadable.
  std::optional<std::uint64_t> pinned_bytes;
  /// CAP_IPC_LOCK in the effective set (/proc/<pid>/status CapEff): the memlock limit does not
  /// apply to its registrations (ib_umem_get); nullopt when unreadable.
  std::optional<bool> cap_ipc_lock;
  /// RLIMIT_MEMLOCK from /proc/<pid>/limits in bytes; nullopt = unlimited or unreadable
  /// (see memlock_unlimited).
  std::optional<std::uint64_t> memlock_soft_bytes;
  bool memlock_unlimited = false;
  std::vector<std::int32_t> cpu_numa_nodes;  ///< NUMA nodes of the CPUs it may run on

  bool operator==(const RdmaProcess&) const = default;
};

}  // namespace rdmatop
