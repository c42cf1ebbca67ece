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
    if (r.series.empty() || r.raw.empty() || !(r.scale > 0) || r.width_bits > 63) return false;
    // At most one placeholder, whose label the row does not also fix. (That the row's labels
    // are exactly its catalogue row's is checked by counter_table_test: the catalogue is
    // another translation unit.)
    if (placeholders_in(r.raw) > 1) return false;
    if (!r.label.name.empty() && r.label.value.empty()) return false;
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

static_assert(rows_valid(), "counter table: a row has a bad placeholder, label or sum group");

}  // namespace

std::span<const CounterRow> counter_rows() {
  return kRows;
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
