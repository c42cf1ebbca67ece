#include "collector/normalize/counter_table.h"

#include <cmath>
#include <iterator>

namespace rdmatop {

namespace {

// Short names so that each row below reads as one line of a table.
using enum DriverFamily;
constexpr RawSource hw = RawSource::port_hw_counters;
constexpr RawSource dev_hw = RawSource::device_hw_counters;
constexpr RawSource pma = RawSource::pma_counters;
constexpr RawSource ethtool = RawSource::ethtool;
constexpr RawSource netstat = RawSource::netdev_statistics;
constexpr Combine kSum = Combine::sum_with_previous;
constexpr FixedLabel kRx{"direction", "rx"};
constexpr FixedLabel kTx{"direction", "tx"};
constexpr FixedLabel kNone{};
constexpr FixedLabel kRead{"direction", "read"};
constexpr FixedLabel kWrite{"direction", "write"};
constexpr FixedLabel kRequester{"side", "requester"};
constexpr FixedLabel kResponder{"side", "responder"};
constexpr FixedLabel kWarning{"level", "warning"};
constexpr FixedLabel kError{"level", "error"};
constexpr double kMicro = 1e-6;  // µs -> seconds
constexpr double kPmaData = 4;   // PMA *_data count octets / 4 (docs/domain.md#pma-counters)

constexpr SeriesKind kCounter = SeriesKind::counter;
constexpr SeriesKind kGauge = SeriesKind::gauge;

// ------------------------------------------------------------------------------------------
// Canonical series. Labels device, port and netdev are implied on every series (netdev is
// omitted when the port has none); `labels` lists the extra ones.
// ------------------------------------------------------------------------------------------
constexpr MetricInfo kMetrics[] = {
    // Traffic
    {"rdma_bytes_total", kCounter, "bytes", "direction", "RDMA (RoCE) traffic bytes of the port."},
    {"rdma_packets_total", kCounter, "packets", "direction", "RDMA (RoCE) packets of the port."},
    {"rdma_priority_bytes_total", kCounter, "bytes", "direction,priority",
     "Bytes of one 802.1p priority at the Ethernet port (all traffic of that priority)."},
    {"rdma_priority_packets_total", kCounter, "packets", "direction,priority",
     "Packets of one 802.1p priority at the Ethernet port (all traffic of that priority)."},
    // PFC and link pause
    {"rdma_pfc_pause_frames_total", kCounter, "frames", "direction,priority",
     "PFC pause frames of one priority (rx: received from the peer, tx: sent by this NIC)."},
    {"rdma_pfc_pause_seconds_total", kCounter, "seconds", "direction,priority",
     "Time spent paused by PFC on one priority (rx: we were paused, tx: we paused the peer)."},
    {"rdma_pfc_pause_transitions_total", kCounter, "events", "direction,priority",
     "PFC pause state transitions of one priority (mlx5: XOFF to XON)."},
    {"rdma_global_pause_frames_total", kCounter, "frames", "direction",
     "IEEE 802.3x (global, link-level) pause frames."},
    {"rdma_global_pause_seconds_total", kCounter, "seconds", "direction",
     "Time spent paused by 802.3x global pause."},
    {"rdma_pause_storm_events_total", kCounter, "events", "level",
     "Pause storm watchdog events (warning: pause asserted too long; error: the NIC stopped "
     "sending pause)."},
    // ECN / CNP (DCQCN)
    {"rdma_ecn_marked_packets_total", kCounter, "packets", "",
     "CE-marked RoCE packets received (DCQCN notification point)."},
    {"rdma_cnp_sent_total", kCounter, "packets", "",
     "Congestion notification packets sent (notification point)."},
    {"rdma_cnp_handled_total", kCounter, "packets", "",
     "CNPs received and acted on: the sender reduced its rate (reaction point)."},
    {"rdma_cnp_ignored_total", kCounter, "packets", "",
     "CNPs received but ignored by the reaction point."},
    {"rdma_cnp_received_total", kCounter, "packets", "",
     "CNPs received (handled plus ignored where the driver counts them separately)."},
    {"rdma_priority_ecn_marked_packets_total", kCounter, "packets", "priority",
     "Packets of one priority ECN-marked by this device's receive buffer."},
    // Transport
    {"rdma_ack_timeouts_total", kCounter, "events", "",
     "Requester ACK timer expirations (each leads to a retransmission)."},
    {"rdma_seq_err_naks_total", kCounter, "packets", "",
     "NAK-sequence-error packets received by the requester (the peer saw a PSN gap)."},
    {"rdma_out_of_sequence_total", kCounter, "packets", "",
     "Packets the responder received out of sequence (PSN gap: loss upstream)."},
    {"rdma_implied_naks_total", kCounter, "events", "",
     "Implied NAKs: a response with a PSN beyond the expected one (lost response)."},
    {"rdma_duplicate_requests_total", kCounter, "packets", "",
     "Duplicate requests received by the responder (the requester retransmitted)."},
    {"rdma_retransmits_total", kCounter, "events", "",
     "Requester retransmission events (timeouts and sequence NAKs)."},
    {"rdma_adaptive_retransmits_total", kCounter, "events", "",
     "Adaptive retransmissions (only with lossy-RoCE adaptive retransmission enabled)."},
    {"rdma_adaptive_retransmit_timeouts_total", kCounter, "events", "",
     "Timeouts reached under adaptive retransmission."},
    {"rdma_retry_exceeded_total", kCounter, "events", "",
     "Transport retry count exceeded: the QP went to error."},
    {"rdma_rnr_naks_received_total", kCounter, "packets", "",
     "RNR NAKs received (the remote receiver had no receive WQE posted)."},
    {"rdma_rnr_naks_sent_total", kCounter, "packets", "",
     "RNR NAKs sent (no receive WQE posted locally)."},
    {"rdma_rnr_retry_exceeded_total", kCounter, "events", "",
     "RNR retry count exceeded: the QP went to error (an application problem)."},
    {"rdma_req_cqe_errors_total", kCounter, "completions", "", "Requester completions with error."},
    {"rdma_resp_cqe_errors_total", kCounter, "completions", "",
     "Responder completions with error."},
    {"rdma_cqe_flush_errors_total", kCounter, "completions", "side",
     "Completions flushed with error (the QP went to error or was torn down)."},
    {"rdma_icrc_errors_total", kCounter, "packets", "", "RoCE packets received with a bad ICRC."},
    // Drops
    {"rdma_out_of_buffer_total", kCounter, "packets", "",
     "RDMA packets dropped because no receive WQE was posted (RQ/SRQ empty)."},
    {"rdma_eth_out_of_buffer_total", kCounter, "packets", "",
     "Ethernet (kernel) packets dropped because the receive ring had no buffer."},
    {"rdma_port_discards_total", kCounter, "packets", "direction",
     "Packets discarded at the port (rx: no port buffer; tx: link down, head of line, pause)."},
    {"rdma_priority_discards_total", kCounter, "packets", "priority",
     "Received packets of one priority dropped for lack of receive buffer."},
    {"rdma_priority_buffer_discards_total", kCounter, "packets", "priority",
     "Received packets of one priority dropped by the per-host buffer."},
    {"rdma_priority_congestion_discards_total", kCounter, "packets", "priority",
     "Received packets of one priority dropped by WRED (congestion discard)."},
    {"rdma_rx_buffer_threshold_events_total", kCounter, "events", "",
     "Times the port receive buffer passed its fill threshold (mlx5: 85%)."},
    // Physical layer
    {"rdma_link_down_events_total", kCounter, "events", "", "Link down events (flaps)."},
    {"rdma_symbol_errors_total", kCounter, "events", "", "Physical coding (symbol) errors."},
    {"rdma_pcs_symbol_errors_total", kCounter, "events", "",
     "Symbol errors not corrected by FEC (post-FEC errors: traffic was lost)."},
    {"rdma_crc_errors_total", kCounter, "frames", "", "Frames received with a bad FCS (CRC)."},
    {"rdma_phy_received_bit_count_total", kCounter, "bits", "",
     "Bits received by the PHY (the denominator of bit error ratios)."},
    {"rdma_fec_corrected_bit_errors_total", kCounter, "bits", "", "Bits corrected by FEC."},
    {"rdma_fec_corrected_blocks_total", kCounter, "blocks", "", "FEC blocks corrected."},
    {"rdma_fec_uncorrectable_blocks_total", kCounter, "blocks", "",
     "FEC blocks that could not be corrected."},
    {"rdma_fec_lane_corrected_bit_errors_total", kCounter, "bits", "lane",
     "Bits corrected by FEC on one PHY lane (one bad lane: a cable/optic/connector fault)."},
    {"rdma_module_events_total", kCounter, "events", "event",
     "Transceiver module events (unplug, bus_stuck, high_temp, bad_shorted)."},
    {"rdma_oversize_frames_total", kCounter, "frames", "",
     "Received frames longer than allowed: the peer's MTU is larger than ours."},
    {"rdma_pcie_stall_events_total", kCounter, "events", "direction",
     "Seconds in which outbound PCIe reads/writes were stalled more than 30% of the time."},
    {"rdma_pcie_buffer_overflow_total", kCounter, "packets", "",
     "Packets dropped because the PCIe buffer overflowed (host cannot keep up)."},
    {"rdma_pcie_signal_integrity_errors_total", kCounter, "events", "direction",
     "PCIe physical-layer signal integrity errors."},
    // IB PMA PortCounters error counters (ports/<n>/counters; legacy widths, they saturate)
    {"rdma_port_rcv_errors_total", kCounter, "packets", "",
     "Packets received with errors (IB PMA PortRcvErrors: bad CRC, malformed, buffer overrun)."},
    {"rdma_port_xmit_discards_total", kCounter, "packets", "",
     "Outbound packets discarded by the port (IB PMA PortXmitDiscards: port down or "
     "congestion)."},
    {"rdma_port_xmit_wait_total", kCounter, "ticks", "",
     "Ticks in which the port had data to send but sent none (IB PMA PortXmitWait: "
     "back-pressure)."},
    {"rdma_link_error_recovery_total", kCounter, "events", "",
     "Successful link error recoveries: the link retrained (IB PMA LinkErrorRecoveryCounter)."},
    {"rdma_local_link_integrity_errors_total", kCounter, "events", "",
     "Times the local physical errors exceeded the link's threshold (IB PMA "
     "LocalLinkIntegrityErrors)."},
    {"rdma_excessive_buffer_overrun_errors_total", kCounter, "events", "",
     "Consecutive receive buffer overrun events past the threshold (IB PMA "
     "ExcessiveBufferOverrunErrors)."},
    {"rdma_vl15_dropped_total", kCounter, "packets", "",
     "Subnet management (VL15) packets dropped for lack of buffer (IB PMA VL15Dropped)."},
    {"rdma_port_rcv_remote_physical_errors_total", kCounter, "packets", "",
     "Packets received marked bad by an upstream hop (IB PMA PortRcvRemotePhysicalErrors)."},
    {"rdma_port_rcv_switch_relay_errors_total", kCounter, "packets", "",
     "Received packets the port could not relay (IB PMA PortRcvSwitchRelayErrors)."},
    {"rdma_port_xmit_constraint_errors_total", kCounter, "packets", "",
     "Packets not sent because of partition/raw constraints (IB PMA PortXmitConstraintErrors)."},
    {"rdma_port_rcv_constraint_errors_total", kCounter, "packets", "",
     "Received packets dropped by partition/raw constraints (IB PMA PortRcvConstraintErrors)."},
    // Derived from snapshot fields by normalizer.cpp (no table rows)
    {"rdma_netdev_carrier_changes_total", kCounter, "events", "",
     "Carrier changes of the port's netdev (sysfs carrier_changes): link flaps."},
    {"rdma_port_state", kGauge, "state", "",
     "IB port state id: 1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE, 5 ACTIVE_DEFER."},
    {"rdma_port_phys_state", kGauge, "state", "",
     "IB physical port state id: 2 Polling, 3 Disabled, 5 LinkUp, 6 LinkErrorRecovery, ..."},
    {"rdma_port_rate_bytes_per_second", kGauge, "bytes per second", "",
     "Port rate from the `rate` file (Gb/s x 125e6)."},
    {"rdma_netdev_mtu_bytes", kGauge, "bytes", "", "MTU of the port's netdev."},
    {"rdma_netdev_up", kGauge, "boolean", "",
     "1 when the netdev operstate is up (or unknown: drivers that do not track carrier), else 0."},
    {"rdma_port_roce_v2_gids", kGauge, "entries", "",
     "RoCE v2 GID entries with a routable address (IPv4-mapped or global IPv6)."},
    {"rdma_port_roce_v1_gids", kGauge, "entries", "",
     "RoCE v1 GID entries with a routable address (IPv4-mapped or global IPv6)."},
    {"rdma_global_pause_enabled", kGauge, "boolean", "direction",
     "1 when IEEE 802.3x link-level pause is on (ethtool -a; rx: honour received pause, tx: "
     "send pause), else 0."},
    {"rdma_pfc_enabled", kGauge, "boolean", "priority",
     "1 when PFC is enabled on the priority (mlx5: inferred from ethtool strings), else 0."},
    {"rdma_port_hw_counters", kGauge, "entries", "",
     "hw_counters the port exposes (its own, plus the device's on its first port); only for "
     "the drivers the table maps."},
    {"rdma_hw_counters_lifespan_seconds", kGauge, "seconds", "",
     "hw_counters cache lifetime: reads closer together return cached values."},
    {"rdma_saturated", kGauge, "boolean", "counter",
     "For every series fed by a counter that stops at its width (IB PMA PortCounters): 1 when "
     "it sits at its maximum (its value is a lower bound and its rate reads 0 until the counter "
     "is reset), else 0."},
};

// ------------------------------------------------------------------------------------------
// The rows. Order matters within a group (first present wins). Columns:
//   series, driver family, source, raw name ({p} = priority 0..7), fixed label, scale,
//   raw width in bits (0 = 64-bit, saturating or unverified), combine.
// mlx5 RDMA counters appear twice: port hw_counters first, then device-scope hw_counters,
// which in switchdev mode hold the uplink's counters (kernel mlx5/counters.c: get_counters()
// and "We don't expose device counters over Vports").
// ------------------------------------------------------------------------------------------
// clang-format off
constexpr CounterRow kRows[] = {
    // ---- Traffic -------------------------------------------------------------------------
    // mlx5: PMA data = (RDMA unicast + multicast octets) >> 2, RoCE only (mlx5/mad.c
    // pma_cnt_ext_assign; docs/domain.md#pma-counters); PMA legacy counters saturate, extended are
    // 64-bit. Fallback: the same vport RDMA counters via ethtool (mlx5e en_stats.c vport
    // group), then the optional netlink-only flow counters (mlx5/counters.c packets_op_cnts).
    {"rdma_bytes_total", mlx5, pma, "port_rcv_data", kRx, kPmaData},
    {"rdma_bytes_total", mlx5, ethtool, "rx_vport_rdma_unicast_bytes", kRx},
    {"rdma_bytes_total", mlx5, ethtool, "rx_vport_rdma_multicast_bytes", kRx, 1, 0, kSum},
    {"rdma_bytes_total", mlx5, hw, "rdma_rx_bytes", kRx},
    {"rdma_bytes_total", mlx5, pma, "port_xmit_data", kTx, kPmaData},
    {"rdma_bytes_total", mlx5, ethtool, "tx_vport_rdma_unicast_bytes", kTx},
    {"rdma_bytes_total", mlx5, ethtool, "tx_vport_rdma_multicast_bytes", kTx, 1, 0, kSum},
    {"rdma_bytes_total", mlx5, hw, "rdma_tx_bytes", kTx},
    {"rdma_packets_total", mlx5, pma, "port_rcv_packets", kRx},
    {"rdma_packets_total", mlx5, ethtool, "rx_vport_rdma_unicast_packets", kRx},
    {"rdma_packets_total", mlx5, ethtool, "rx_vport_rdma_multicast_packets", kRx, 1, 0, kSum},
    {"rdma_packets_total", mlx5, hw, "rdma_rx_packets", kRx},
    {"rdma_packets_total", mlx5, pma, "port_xmit_packets", kTx},
    {"rdma_packets_total", mlx5, ethtool, "tx_vport_rdma_unicast_packets", kTx},
    {"rdma_packets_total", mlx5, ethtool, "tx_vport_rdma_multicast_packets", kTx, 1, 0, kSum},
    {"rdma_packets_total", mlx5, hw, "rdma_tx_packets", kTx},
    // bnxt_re: RoCE function traffic, u64 (bnxt_re/hw_counters.c).
    {"rdma_bytes_total", bnxt_re, hw, "rx_bytes", kRx},
    {"rdma_bytes_total", bnxt_re, hw, "tx_bytes", kTx},
    {"rdma_packets_total", bnxt_re, hw, "rx_pkts", kRx},
    {"rdma_packets_total", bnxt_re, hw, "tx_pkts", kTx},
    // irdma: IPv4 + IPv6 counters, 64-bit (irdma/verbs.c irdma_hw_stat_descs).
    {"rdma_bytes_total", irdma, hw, "ip4InOctets", kRx},
    {"rdma_bytes_total", irdma, hw, "ip6InOctets", kRx, 1, 0, kSum},
    {"rdma_bytes_total", irdma, hw, "ip4OutOctets", kTx},
    {"rdma_bytes_total", irdma, hw, "ip6OutOctets", kTx, 1, 0, kSum},
    {"rdma_packets_total", irdma, hw, "ip4InPkts", kRx},
    {"rdma_packets_total", irdma, hw, "ip6InPkts", kRx, 1, 0, kSum},
    {"rdma_packets_total", irdma, hw, "ip4OutPkts", kTx},
    {"rdma_packets_total", irdma, hw, "ip6OutPkts", kTx, 1, 0, kSum},
    // rxe: atomic64 software counters; *_bytes only on newer kernels (rxe_hw_counters.c).
    {"rdma_bytes_total", rxe, hw, "rcvd_bytes", kRx},
    {"rdma_bytes_total", rxe, hw, "sent_bytes", kTx},
    {"rdma_packets_total", rxe, hw, "rcvd_pkts", kRx},
    {"rdma_packets_total", rxe, hw, "sent_pkts", kTx},

    // ---- Per-priority traffic ------------------------------------------------------------
    // mlx5e per_prio traffic group, always present, 64-bit PPCNT (en_stats.c).
    {"rdma_priority_bytes_total", mlx5, ethtool, "rx_prio{p}_bytes", kRx},
    {"rdma_priority_bytes_total", mlx5, ethtool, "tx_prio{p}_bytes", kTx},
    {"rdma_priority_packets_total", mlx5, ethtool, "rx_prio{p}_packets", kRx},
    {"rdma_priority_packets_total", mlx5, ethtool, "tx_prio{p}_packets", kTx},
    // bnxt_en: only when pri2cos_valid (bnxt_ethtool.c bnxt_rx_bytes_pri_arr ...).
    {"rdma_priority_bytes_total", bnxt_re, ethtool, "rx_bytes_pri{p}", kRx},
    {"rdma_priority_bytes_total", bnxt_re, ethtool, "tx_bytes_pri{p}", kTx},
    {"rdma_priority_packets_total", bnxt_re, ethtool, "rx_packets_pri{p}", kRx},
    {"rdma_priority_packets_total", bnxt_re, ethtool, "tx_packets_pri{p}", kTx},

    // ---- PFC -----------------------------------------------------------------------------
    // mlx5e per_prio PFC group: only for PFC-enabled priorities; duration in µs; transition is
    // rx only (en_stats.c, mlx5 counters.rst; docs/domain.md#ethtool-statistics).
    {"rdma_pfc_pause_frames_total", mlx5, ethtool, "rx_prio{p}_pause", kRx},
    {"rdma_pfc_pause_frames_total", mlx5, ethtool, "tx_prio{p}_pause", kTx},
    {"rdma_pfc_pause_seconds_total", mlx5, ethtool, "rx_prio{p}_pause_duration", kRx, kMicro},
    {"rdma_pfc_pause_seconds_total", mlx5, ethtool, "tx_prio{p}_pause_duration", kTx, kMicro},
    {"rdma_pfc_pause_transitions_total", mlx5, ethtool, "rx_prio{p}_pause_transition", kRx},
    // bnxt_en port stats and rx/tx port stats ext (bnxt_ethtool.c BNXT_*_STATS_EXT_PFC_ENTRY).
    {"rdma_pfc_pause_frames_total", bnxt_re, ethtool, "rx_pfc_ena_frames_pri{p}", kRx},
    {"rdma_pfc_pause_frames_total", bnxt_re, ethtool, "tx_pfc_ena_frames_pri{p}", kTx},
    {"rdma_pfc_pause_seconds_total", bnxt_re, ethtool, "pfc_pri{p}_rx_duration_us", kRx, kMicro},
    {"rdma_pfc_pause_seconds_total", bnxt_re, ethtool, "pfc_pri{p}_tx_duration_us", kTx, kMicro},
    {"rdma_pfc_pause_transitions_total", bnxt_re, ethtool, "pfc_pri{p}_rx_transitions", kRx},
    {"rdma_pfc_pause_transitions_total", bnxt_re, ethtool, "pfc_pri{p}_tx_transitions", kTx},
    // ice: XOFF frames per priority, software-accumulated u64 (ice_ethtool.c ice_get_strings).
    {"rdma_pfc_pause_frames_total", irdma, ethtool, "rx_priority_{p}_xoff.nic", kRx},
    {"rdma_pfc_pause_frames_total", irdma, ethtool, "tx_priority_{p}_xoff.nic", kTx},

    // ---- 802.3x global pause -------------------------------------------------------------
    // mlx5e per_prio global group, only when global pause is enabled (en_stats.c). The
    // *_pause_ctrl_phy counters are NOT used: on mlx5 they may include PFC frames
    // (docs/domain.md#ethtool-statistics).
    {"rdma_global_pause_frames_total", mlx5, ethtool, "rx_global_pause", kRx},
    {"rdma_global_pause_frames_total", mlx5, ethtool, "tx_global_pause", kTx},
    {"rdma_global_pause_seconds_total", mlx5, ethtool, "rx_global_pause_duration", kRx, kMicro},
    {"rdma_global_pause_seconds_total", mlx5, ethtool, "tx_global_pause_duration", kTx, kMicro},
    // bnxt_en port stats; ice link_xoff (bnxt_ethtool.c, ice_ethtool.c).
    {"rdma_global_pause_frames_total", bnxt_re, ethtool, "rx_pause_frames", kRx},
    {"rdma_global_pause_frames_total", bnxt_re, ethtool, "tx_pause_frames", kTx},
    {"rdma_global_pause_frames_total", irdma, ethtool, "link_xoff_rx.nic", kRx},
    {"rdma_global_pause_frames_total", irdma, ethtool, "link_xoff_tx.nic", kTx},

    // ---- Pause storm ---------------------------------------------------------------------
    // mlx5 PPCNT device_stall_minor/critical_watermark_cnt (en_stats.c, en_ethtool.c). bnxt's
    // continuous RoCE pause events are vendor-defined; we do not know that the NIC stopped
    // sending pause, so they count as warnings (docs/domain.md#pfc-storms).
    {"rdma_pause_storm_events_total", mlx5, ethtool, "tx_pause_storm_warning_events", kWarning},
    // Older kernels spelled this string with a trailing space (en_stats.c, since fixed).
    {"rdma_pause_storm_events_total", mlx5, ethtool, "tx_pause_storm_warning_events ", kWarning},
    {"rdma_pause_storm_events_total", mlx5, ethtool, "tx_pause_storm_error_events", kError},
    {"rdma_pause_storm_events_total", bnxt_re, ethtool, "continuous_roce_pause_events", kWarning},

    // ---- ECN / CNP -----------------------------------------------------------------------
    // mlx5 congestion counters, 64-bit (mlx5/counters.c cong_cnts, commit e1f24a79), then the
    // optional netlink-only flow counters. bnxt_re ext counters, u64 (hw_counters.c). irdma
    // gen2: cnp* are 32-bit, RxECNMrkd 64-bit (irdma/verbs.c). docs/domain.md#dcqcn.
    {"rdma_ecn_marked_packets_total", mlx5, hw, "np_ecn_marked_roce_packets"},
    {"rdma_ecn_marked_packets_total", mlx5, dev_hw, "np_ecn_marked_roce_packets"},
    {"rdma_ecn_marked_packets_total", mlx5, hw, "cc_rx_ce_pkts"},
    {"rdma_ecn_marked_packets_total", bnxt_re, hw, "rx_ecn_marked_pkts"},
    {"rdma_ecn_marked_packets_total", irdma, hw, "RxECNMrkd"},
    {"rdma_cnp_sent_total", mlx5, hw, "np_cnp_sent"},
    {"rdma_cnp_sent_total", mlx5, dev_hw, "np_cnp_sent"},
    {"rdma_cnp_sent_total", mlx5, hw, "cc_tx_cnp_pkts"},
    {"rdma_cnp_sent_total", bnxt_re, hw, "tx_cnp_pkts"},
    {"rdma_cnp_sent_total", irdma, hw, "cnpSent", kNone, 1, 32},
    {"rdma_cnp_handled_total", mlx5, hw, "rp_cnp_handled"},
    {"rdma_cnp_handled_total", mlx5, dev_hw, "rp_cnp_handled"},
    {"rdma_cnp_handled_total", irdma, hw, "cnpHandled", kNone, 1, 32},
    {"rdma_cnp_ignored_total", mlx5, hw, "rp_cnp_ignored"},
    {"rdma_cnp_ignored_total", mlx5, dev_hw, "rp_cnp_ignored"},
    {"rdma_cnp_ignored_total", irdma, hw, "cnpIgnored", kNone, 1, 32},
    {"rdma_cnp_received_total", mlx5, hw, "rp_cnp_handled"},
    {"rdma_cnp_received_total", mlx5, hw, "rp_cnp_ignored", kNone, 1, 0, kSum},
    {"rdma_cnp_received_total", mlx5, dev_hw, "rp_cnp_handled"},
    {"rdma_cnp_received_total", mlx5, dev_hw, "rp_cnp_ignored", kNone, 1, 0, kSum},
    {"rdma_cnp_received_total", mlx5, hw, "cc_rx_cnp_pkts"},
    {"rdma_cnp_received_total", bnxt_re, hw, "rx_cnp_pkts"},
    {"rdma_cnp_received_total", irdma, hw, "cnpHandled", kNone, 1, 32},
    {"rdma_cnp_received_total", irdma, hw, "cnpIgnored", kNone, 1, 32, kSum},
    // mlx5e per_port_buff_congest group, only with the sbcam_reg cap (en_stats.c).
    {"rdma_priority_ecn_marked_packets_total", mlx5, ethtool, "rx_prio{p}_marked"},

    // ---- Transport -----------------------------------------------------------------------
    // mlx5 Q-counters are 32-bit hardware fields read as be32 (mlx5/counters.c
    // mlx5_ib_query_q_counters; docs/domain.md#counter-widths). bnxt_re u64 (hw_counters.c). rxe
    // atomic64 (rxe_hw_counters.c). irdma names with spaces come from the gen3 series (2025),
    // width not verified (irdma/verbs.c irdma_hw_stat_descs). Semantics:
    // docs/domain.md#transport-errors.
    {"rdma_ack_timeouts_total", mlx5, hw, "local_ack_timeout_err", kNone, 1, 32},
    {"rdma_ack_timeouts_total", mlx5, dev_hw, "local_ack_timeout_err", kNone, 1, 32},
    {"rdma_ack_timeouts_total", bnxt_re, hw, "to_retransmits"},
    {"rdma_ack_timeouts_total", irdma, hw, "RTO"},
    {"rdma_seq_err_naks_total", mlx5, hw, "packet_seq_err", kNone, 1, 32},
    {"rdma_seq_err_naks_total", mlx5, dev_hw, "packet_seq_err", kNone, 1, 32},
    {"rdma_seq_err_naks_total", bnxt_re, hw, "seq_err_naks_rcvd"},
    {"rdma_seq_err_naks_total", rxe, hw, "rcvd_seq_err"},
    {"rdma_seq_err_naks_total", irdma, hw, "Nak Sequence Error"},
    {"rdma_out_of_sequence_total", mlx5, hw, "out_of_sequence", kNone, 1, 32},
    {"rdma_out_of_sequence_total", mlx5, dev_hw, "out_of_sequence", kNone, 1, 32},
    {"rdma_out_of_sequence_total", bnxt_re, hw, "oos_drop_count"},
    {"rdma_out_of_sequence_total", rxe, hw, "out_of_seq_request"},
    {"rdma_out_of_sequence_total", irdma, hw, "Rcvd Out of order packets"},
    {"rdma_implied_naks_total", mlx5, hw, "implied_nak_seq_err", kNone, 1, 32},
    {"rdma_implied_naks_total", mlx5, dev_hw, "implied_nak_seq_err", kNone, 1, 32},
    {"rdma_implied_naks_total", irdma, hw, "Nak Sequence Error Implied"},
    {"rdma_duplicate_requests_total", mlx5, hw, "duplicate_request", kNone, 1, 32},
    {"rdma_duplicate_requests_total", mlx5, dev_hw, "duplicate_request", kNone, 1, 32},
    {"rdma_duplicate_requests_total", bnxt_re, hw, "dup_req"},
    {"rdma_duplicate_requests_total", rxe, hw, "duplicate_request"},
    {"rdma_retransmits_total", rxe, hw, "completer_retry_err"},
    // mlx5 roce_accl group (commit d7fab916).
    {"rdma_adaptive_retransmits_total", mlx5, hw, "roce_adp_retrans", kNone, 1, 32},
    {"rdma_adaptive_retransmits_total", mlx5, dev_hw, "roce_adp_retrans", kNone, 1, 32},
    {"rdma_adaptive_retransmit_timeouts_total", mlx5, hw, "roce_adp_retrans_to", kNone, 1, 32},
    {"rdma_adaptive_retransmit_timeouts_total", mlx5, dev_hw, "roce_adp_retrans_to", kNone, 1, 32},
    // mlx5 req_*_retries_exceeded were added in 2024 (commit b339e0a).
    {"rdma_retry_exceeded_total", mlx5, hw, "req_transport_retries_exceeded", kNone, 1, 32},
    {"rdma_retry_exceeded_total", mlx5, dev_hw, "req_transport_retries_exceeded", kNone, 1, 32},
    {"rdma_retry_exceeded_total", bnxt_re, hw, "max_retry_exceeded"},
    {"rdma_retry_exceeded_total", rxe, hw, "retry_exceeded_err"},
    // mlx5 rnr_nak_retry_err counts RNR NAKs the requester received and retried ("the QP retry
    // limit was not exceeded", NVIDIA's mlx5 counter documentation); the retry-exceeded error is
    // req_rnr_retries_exceeded (commit b339e0a, 2024). Real data agrees: in
    // sonic-net/sonic-buildimage#21891 the sender's rnr_nak_retry_err (1543) equals the
    // receiver's out_of_buffer drops (1543), one RNR NAK per dropped request.
    {"rdma_rnr_naks_received_total", mlx5, hw, "rnr_nak_retry_err", kNone, 1, 32},
    {"rdma_rnr_naks_received_total", mlx5, dev_hw, "rnr_nak_retry_err", kNone, 1, 32},
    {"rdma_rnr_naks_received_total", bnxt_re, hw, "rnr_naks_rcvd"},
    {"rdma_rnr_naks_received_total", rxe, hw, "rcvd_rnr_err"},
    {"rdma_rnr_naks_received_total", irdma, hw, "RNR received"},
    {"rdma_rnr_naks_sent_total", rxe, hw, "send_rnr_err"},
    {"rdma_rnr_naks_sent_total", irdma, hw, "RNR sent"},
    {"rdma_rnr_retry_exceeded_total", mlx5, hw, "req_rnr_retries_exceeded", kNone, 1, 32},
    {"rdma_rnr_retry_exceeded_total", mlx5, dev_hw, "req_rnr_retries_exceeded", kNone, 1, 32},
    {"rdma_rnr_retry_exceeded_total", rxe, hw, "retry_rnr_exceeded_err"},
    // mlx5 enhanced_error_q_counters.
    {"rdma_req_cqe_errors_total", mlx5, hw, "req_cqe_error", kNone, 1, 32},
    {"rdma_req_cqe_errors_total", mlx5, dev_hw, "req_cqe_error", kNone, 1, 32},
    {"rdma_resp_cqe_errors_total", mlx5, hw, "resp_cqe_error", kNone, 1, 32},
    {"rdma_resp_cqe_errors_total", mlx5, dev_hw, "resp_cqe_error", kNone, 1, 32},
    {"rdma_cqe_flush_errors_total", mlx5, hw, "req_cqe_flush_error", kRequester, 1, 32},
    {"rdma_cqe_flush_errors_total", mlx5, dev_hw, "req_cqe_flush_error", kRequester, 1, 32},
    {"rdma_cqe_flush_errors_total", mlx5, hw, "resp_cqe_flush_error", kResponder, 1, 32},
    {"rdma_cqe_flush_errors_total", mlx5, dev_hw, "resp_cqe_flush_error", kResponder, 1, 32},
    // mlx5 PPCNT extended group, 64-bit, PCAM rx_icrc_encapsulated_counter cap.
    {"rdma_icrc_errors_total", mlx5, hw, "rx_icrc_encapsulated"},
    {"rdma_icrc_errors_total", mlx5, dev_hw, "rx_icrc_encapsulated"},
    {"rdma_icrc_errors_total", irdma, hw, "CRC errors"},

    // ---- Drops ---------------------------------------------------------------------------
    // RDMA out_of_buffer (mlx5 basic Q-counter, 32-bit; bnxt_re ext) is a different counter
    // from the Ethernet rx_out_of_buffer Q-counter (mlx5e qcnt group, 32-bit).
    // docs/domain.md#counter-widths.
    {"rdma_out_of_buffer_total", mlx5, hw, "out_of_buffer", kNone, 1, 32},
    {"rdma_out_of_buffer_total", mlx5, dev_hw, "out_of_buffer", kNone, 1, 32},
    {"rdma_out_of_buffer_total", bnxt_re, hw, "rx_out_of_buffer"},
    {"rdma_eth_out_of_buffer_total", mlx5, ethtool, "rx_out_of_buffer", kNone, 1, 32},
    // mlx5e 2863 group (if_in/out_discards); bnxt_en port stats; ice rx_discards.
    {"rdma_port_discards_total", mlx5, ethtool, "rx_discards_phy", kRx},
    {"rdma_port_discards_total", mlx5, ethtool, "tx_discards_phy", kTx},
    {"rdma_port_discards_total", bnxt_re, ethtool, "rx_stat_discard", kRx},
    {"rdma_port_discards_total", bnxt_re, ethtool, "tx_stat_discard", kTx},
    {"rdma_port_discards_total", irdma, ethtool, "rx_dropped.nic", kRx},
    // mlx5e per_prio traffic (always) and per_port_buff_congest (sbcam_reg cap) groups.
    {"rdma_priority_discards_total", mlx5, ethtool, "rx_prio{p}_discards"},
    {"rdma_priority_buffer_discards_total", mlx5, ethtool, "rx_prio{p}_buf_discard"},
    {"rdma_priority_congestion_discards_total", mlx5, ethtool, "rx_prio{p}_cong_discard"},
    // mlx5e eth_ext group (> 85% full); bnxt_en rx port stats ext.
    {"rdma_rx_buffer_threshold_events_total", mlx5, ethtool, "rx_buffer_passed_thres_phy"},
    {"rdma_rx_buffer_threshold_events_total", bnxt_re, ethtool, "rx_buffer_passed_threshold"},

    // ---- Physical layer ------------------------------------------------------------------
    // mlx5e phy group: link_down_events_phy is a 32-bit field (en_stats.c). bnxt_en rx port stats
    // ext. rxe software counter. IB PMA link_downed is 8 bits and saturates (sysfs.c): last.
    {"rdma_link_down_events_total", mlx5, ethtool, "link_down_events_phy", kNone, 1, 32},
    {"rdma_link_down_events_total", bnxt_re, ethtool, "link_down_events"},
    {"rdma_link_down_events_total", rxe, hw, "link_downed"},
    {"rdma_link_down_events_total", any, pma, "link_downed"},
    // mlx5e 802.3 group a_symbol_error_during_carrier; IB PMA symbol_error (16-bit, saturates).
    {"rdma_symbol_errors_total", mlx5, ethtool, "rx_symbol_err_phy"},
    {"rdma_symbol_errors_total", any, pma, "symbol_error"},
    // mlx5e phy statistical group (PCAM ppcnt_statistical_group); bnxt_en rx port stats ext.
    {"rdma_pcs_symbol_errors_total", mlx5, ethtool, "rx_pcs_symbol_err_phy"},
    {"rdma_pcs_symbol_errors_total", bnxt_re, ethtool, "rx_pcs_symbol_err"},
    {"rdma_phy_received_bit_count_total", mlx5, ethtool, "rx_bits_phy"},
    {"rdma_phy_received_bit_count_total", bnxt_re, ethtool, "rx_bits"},
    {"rdma_fec_corrected_bit_errors_total", mlx5, ethtool, "rx_corrected_bits_phy"},
    {"rdma_fec_corrected_bit_errors_total", bnxt_re, ethtool, "rx_corrected_bits"},
    {"rdma_fec_corrected_blocks_total", bnxt_re, ethtool, "rx_fec_corrected_blocks"},
    {"rdma_fec_uncorrectable_blocks_total", bnxt_re, ethtool, "rx_fec_uncorrectable_blocks"},
    // mlx5e phy statistical per-lane group, 64-bit (_high/_low PPCNT fields), only with the
    // PCAM per_lane_error_counters cap (en_stats.c pport_phy_statistical_err_lanes_stats_desc).
    {"rdma_fec_lane_corrected_bit_errors_total", mlx5, ethtool, "rx_err_lane_{l}_phy"},
    // FCS errors: mlx5e 802.3 a_frame_check_sequence_errors, bnxt_en, ice; then the generic
    // netdev statistics every driver has (class/net/<if>/statistics/rx_crc_errors).
    {"rdma_crc_errors_total", mlx5, ethtool, "rx_crc_errors_phy"},
    {"rdma_crc_errors_total", bnxt_re, ethtool, "rx_fcs_err_frames"},
    {"rdma_crc_errors_total", irdma, ethtool, "rx_crc_errors.nic"},
    {"rdma_crc_errors_total", any, netstat, "rx_crc_errors"},
    // mlx5e pme group (module events).
    {"rdma_module_events_total", mlx5, ethtool, "module_unplug", {"event", "unplug"}},
    {"rdma_module_events_total", mlx5, ethtool, "module_bus_stuck", {"event", "bus_stuck"}},
    {"rdma_module_events_total", mlx5, ethtool, "module_high_temp", {"event", "high_temp"}},
    {"rdma_module_events_total", mlx5, ethtool, "module_bad_shorted", {"event", "bad_shorted"}},
    // Peer MTU larger than ours (mlx5 counters.rst; docs/domain.md#mtu): mlx5e 802.3, bnxt_en, ice.
    {"rdma_oversize_frames_total", mlx5, ethtool, "rx_oversize_pkts_phy"},
    {"rdma_oversize_frames_total", bnxt_re, ethtool, "rx_mtu_err_frames"},
    {"rdma_oversize_frames_total", irdma, ethtool, "rx_oversize.nic"},
    // mlx5e pcie group (MCAM caps): the signal integrity and stall counters are 32-bit, the
    // buffer overflow counter 64-bit (en_stats.c pcie_perf_stats_desc{,64}, _stall_stats_desc).
    {"rdma_pcie_stall_events_total", mlx5, ethtool, "outbound_pci_stalled_rd_events", kRead, 1, 32},
    {"rdma_pcie_stall_events_total", mlx5, ethtool, "outbound_pci_stalled_wr_events", kWrite,
     1, 32},
    {"rdma_pcie_buffer_overflow_total", mlx5, ethtool, "outbound_pci_buffer_overflow"},
    {"rdma_pcie_signal_integrity_errors_total", mlx5, ethtool, "rx_pci_signal_integrity", kRx,
     1, 32},
    {"rdma_pcie_signal_integrity_errors_total", mlx5, ethtool, "tx_pci_signal_integrity", kTx,
     1, 32},

    // ---- IB PMA PortCounters (ports/<n>/counters) ------------------------------------------
    // The legacy PortCounters attribute: fields of the widths below (IBTA vol. 1 §16.1;
    // drivers/infiniband/core/sysfs.c PORT_PMA_ATTR, include/rdma/ib_pma.h), which SATURATE at
    // 2^width - 1 instead of wrapping, so width_bits stays 0 (a reset, never a wrap; the lead's
    // saturation field will take the widths). mlx5 fills them from the PPCNT InfiniBand port
    // counters group (mlx5/mad.c pma_cnt_assign, query_ib_ppcnt), whatever the link layer.
    {"rdma_port_rcv_errors_total", any, pma, "port_rcv_errors"},                  // 16 bits
    {"rdma_port_xmit_discards_total", any, pma, "port_xmit_discards"},            // 16 bits
    {"rdma_port_xmit_wait_total", any, pma, "port_xmit_wait"},                    // 32 bits
    {"rdma_link_error_recovery_total", any, pma, "link_error_recovery"},          // 8 bits
    {"rdma_local_link_integrity_errors_total", any, pma, "local_link_integrity_errors"},  // 4
    {"rdma_excessive_buffer_overrun_errors_total", any, pma,
     "excessive_buffer_overrun_errors"},                                          // 4 bits
    {"rdma_vl15_dropped_total", any, pma, "VL15_dropped"},                        // 16 bits
    {"rdma_port_rcv_remote_physical_errors_total", any, pma,
     "port_rcv_remote_physical_errors"},                                          // 16 bits
    {"rdma_port_rcv_switch_relay_errors_total", any, pma, "port_rcv_switch_relay_errors"},  // 16
    {"rdma_port_xmit_constraint_errors_total", any, pma, "port_xmit_constraint_errors"},  // 8
    {"rdma_port_rcv_constraint_errors_total", any, pma, "port_rcv_constraint_errors"},    // 8
};
// clang-format on

// ------------------------------------------------------------------------------------------
// Compile-time checks of the table: a broken row fails the build, not a scrape.
// ------------------------------------------------------------------------------------------
constexpr const MetricInfo* metric_named(std::string_view name) {
  for (const MetricInfo& m : kMetrics) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

// [a-z][a-z0-9_]*: a subset of Prometheus names; digits only for "roce_v2"-style names.
constexpr bool valid_name(std::string_view name) {
  if (name.empty() || name.front() < 'a' || name.front() > 'z') return false;
  for (const char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

constexpr bool list_contains(std::string_view list, std::string_view item) {
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    if (list.substr(0, comma) == item) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

constexpr std::size_t list_size(std::string_view list) {
  if (list.empty()) return 0;
  std::size_t n = 1;
  for (const char c : list) n += c == ',' ? 1 : 0;
  return n;
}

constexpr bool metrics_valid() {
  for (std::size_t i = 0; i < std::size(kMetrics); ++i) {
    const MetricInfo& m = kMetrics[i];
    if (!valid_name(m.name) || m.unit.empty() || m.help.empty()) return false;
    const bool total = m.name.ends_with("_total");
    if ((m.kind == SeriesKind::counter) != total) return false;
    for (std::size_t j = 0; j < i; ++j) {
      if (kMetrics[j].name == m.name) return false;  // duplicate
    }
  }
  return true;
}

constexpr bool same_group(const CounterRow& a, const CounterRow& b) {
  return a.series == b.series && a.label.name == b.label.name && a.label.value == b.label.value &&
         placeholder_index(a.raw) == placeholder_index(b.raw);
}

constexpr std::size_t placeholders_in(std::string_view raw) {
  std::size_t n = 0;
  for (const Placeholder& p : kPlaceholders) n += raw.find(p.text) != std::string_view::npos;
  return n;
}

constexpr bool rows_valid() {
  for (std::size_t i = 0; i < std::size(kRows); ++i) {
    const CounterRow& r = kRows[i];
    const MetricInfo* m = metric_named(r.series);
    if (m == nullptr || r.raw.empty() || !(r.scale > 0) || r.width_bits > 63) return false;
    // The row's labels must be exactly the metric's declared extra labels; at most one
    // placeholder, whose label the row does not also fix.
    const int placeholder = placeholder_index(r.raw);
    if (placeholders_in(r.raw) > 1) return false;
    const std::size_t labels = (r.label.name.empty() ? 0 : 1) + (placeholder >= 0 ? 1 : 0);
    if (labels != list_size(m->labels)) return false;
    if (!r.label.name.empty() && (!list_contains(m->labels, r.label.name) || r.label.value.empty()))
      return false;
    if (placeholder >= 0 && !list_contains(m->labels, kPlaceholders[placeholder].label)) {
      return false;
    }
    for (const Placeholder& p : kPlaceholders) {
      if (r.label.name == p.label) return false;
    }
    // A summed term continues the alternative of the row just above: same series, labels and
    // driver, and the same width and scale so that one wrap modulus fits the sum.
    if (r.combine == Combine::sum_with_previous) {
      if (i == 0) return false;
      const CounterRow& p = kRows[i - 1];
      if (!same_group(p, r) || p.driver != r.driver || p.width_bits != r.width_bits ||
          p.scale != r.scale)
        return false;
    }
  }
  return true;
}

static_assert(metrics_valid(), "metric table: bad name, kind/_total mismatch, or duplicate");
static_assert(rows_valid(), "counter table: a row does not fit its metric or its sum group");

}  // namespace

std::span<const CounterRow> counter_rows() {
  return kRows;
}

std::span<const MetricInfo> metric_infos() {
  return kMetrics;
}

const MetricInfo* find_metric(std::string_view name) {
  return metric_named(name);
}

DriverFamily family_of_rdma_driver(std::string_view driver) {
  if (driver == "mlx5" || driver == "mlx5_ib") return DriverFamily::mlx5;
  if (driver == "bnxt_re") return DriverFamily::bnxt_re;
  if (driver == "irdma") return DriverFamily::irdma;
  if (driver == "rxe" || driver == "rdma_rxe") return DriverFamily::rxe;
  return DriverFamily::any;
}

DriverFamily family_of_netdev_driver(std::string_view driver) {
  if (driver == "mlx5_core") return DriverFamily::mlx5;
  if (driver == "bnxt_en") return DriverFamily::bnxt_re;
  if (driver == "ice") return DriverFamily::irdma;
  return DriverFamily::any;
}

bool has_priority_placeholder(std::string_view raw) {
  return raw.find(kPriorityPlaceholder) != std::string_view::npos;
}

std::string expand_raw_name(std::string_view raw, int value) {
  std::string out(raw);
  if (const Placeholder* p = placeholder_of(raw)) {
    out.replace(out.find(p->text), p->text.size(), std::to_string(value));
  }
  return out;
}

double wrap_modulus(const CounterRow& row) {
  return row.width_bits == 0 ? 0.0 : std::ldexp(row.scale, row.width_bits);
}

std::uint8_t saturating_width_bits(RawSource source, std::string_view raw) {
  if (source != RawSource::pma_counters) return 0;
  // PortCounters (attribute 0x12) fields as the kernel reads them: PORT_PMA_ATTR(name, counter,
  // width, offset) in drivers/infiniband/core/sysfs.c. The data and packet counters are not
  // listed: where the port supports PortCountersExtended (pma_attrs_ext) they are 64-bit.
  static constexpr std::pair<std::string_view, std::uint8_t> kPortCounters[] = {
      {"symbol_error", 16},
      {"link_error_recovery", 8},
      {"link_downed", 8},
      {"port_rcv_errors", 16},
      {"port_rcv_remote_physical_errors", 16},
      {"port_rcv_switch_relay_errors", 16},
      {"port_xmit_discards", 16},
      {"port_xmit_constraint_errors", 8},
      {"port_rcv_constraint_errors", 8},
      {"local_link_integrity_errors", 4},
      {"excessive_buffer_overrun_errors", 4},
      {"VL15_dropped", 16},
      {"port_xmit_wait", 32},
  };
  for (const auto& [name, width] : kPortCounters) {
    if (name == raw) return width;
  }
  return 0;
}

double saturation_value(const CounterRow& row) {
  const std::uint8_t width = saturating_width_bits(row.source, row.raw);
  return width == 0 ? 0.0 : (std::ldexp(1.0, width) - 1) * row.scale;
}

const char* to_string(DriverFamily family) {
  switch (family) {
    case DriverFamily::any:
      return "any";
    case DriverFamily::mlx5:
      return "mlx5";
    case DriverFamily::bnxt_re:
      return "bnxt_re";
    case DriverFamily::irdma:
      return "irdma";
    case DriverFamily::rxe:
      return "rxe";
  }
  return "unknown";
}

const char* to_string(RawSource source) {
  switch (source) {
    case RawSource::port_hw_counters:
      return "hw_counters";
    case RawSource::device_hw_counters:
      return "device_hw_counters";
    case RawSource::pma_counters:
      return "counters";
    case RawSource::ethtool:
      return "ethtool";
    case RawSource::netdev_statistics:
      return "statistics";
  }
  return "unknown";
}

const char* to_string(Combine combine) {
  switch (combine) {
    case Combine::first_present:
      return "first_present";
    case Combine::sum_with_previous:
      return "sum_with_previous";
  }
  return "unknown";
}

}  // namespace rdmatop
