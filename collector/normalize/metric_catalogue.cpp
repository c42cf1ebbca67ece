#include "collector/normalize/metric_catalogue.h"

#include <array>
#include <iterator>
#include <string>
#include <unordered_map>

namespace rdmatop {

namespace {

// Short names so that each row below reads as one line of a table.
constexpr MetricKind kCounter = MetricKind::counter;
constexpr MetricKind kGauge = MetricKind::gauge;
constexpr MetricKind kHistogram = MetricKind::histogram;
constexpr MetricKind kUntyped = MetricKind::untyped;
constexpr MetricScope kPort = MetricScope::port;
constexpr MetricScope kDevice = MetricScope::device;
constexpr MetricScope kHost = MetricScope::host;
constexpr MetricScope kStream = MetricScope::probe_stream;
constexpr MetricScope kProber = MetricScope::prober;
constexpr MetricScope kExporter = MetricScope::exporter;

constexpr MetricInfo kCatalogue[] = {
    // ---- Port series: the counter table's (counter_table.cpp) and the normalizer's ----------
    // Labels device, port and netdev are implied (netdev is omitted when the port has none).
    // Traffic
    {"rdma_bytes_total", kCounter, "bytes", kPort, "direction",
     "RDMA (RoCE) traffic bytes of the port."},
    {"rdma_packets_total", kCounter, "packets", kPort, "direction",
     "RDMA (RoCE) packets of the port."},
    {"rdma_priority_bytes_total", kCounter, "bytes", kPort, "direction,priority",
     "Bytes of one 802.1p priority at the Ethernet port (all traffic of that priority)."},
    {"rdma_priority_packets_total", kCounter, "packets", kPort, "direction,priority",
     "Packets of one 802.1p priority at the Ethernet port (all traffic of that priority)."},
    // PFC and link pause
    {"rdma_pfc_pause_frames_total", kCounter, "frames", kPort, "direction,priority",
     "PFC pause frames of one priority (rx: received from the peer, tx: sent by this NIC)."},
    {"rdma_pfc_pause_seconds_total", kCounter, "seconds", kPort, "direction,priority",
     "Time spent paused by PFC on one priority (rx: we were paused, tx: we paused the peer)."},
    {"rdma_pfc_pause_transitions_total", kCounter, "events", kPort, "direction,priority",
     "PFC pause state transitions of one priority (mlx5: XOFF to XON)."},
    {"rdma_global_pause_frames_total", kCounter, "frames", kPort, "direction",
     "IEEE 802.3x (global, link-level) pause frames."},
    {"rdma_global_pause_seconds_total", kCounter, "seconds", kPort, "direction",
     "Time spent paused by 802.3x global pause."},
    {"rdma_pause_storm_events_total", kCounter, "events", kPort, "level",
     "Pause storm watchdog events (warning: pause asserted too long; error: the NIC stopped "
     "sending pause)."},
    // ECN / CNP (DCQCN)
    {"rdma_ecn_marked_packets_total", kCounter, "packets", kPort, "",
     "CE-marked RoCE packets received (DCQCN notification point)."},
    {"rdma_cnp_sent_total", kCounter, "packets", kPort, "",
     "Congestion notification packets sent (notification point)."},
    {"rdma_cnp_handled_total", kCounter, "packets", kPort, "",
     "CNPs received and acted on: the sender reduced its rate (reaction point)."},
    {"rdma_cnp_ignored_total", kCounter, "packets", kPort, "",
     "CNPs received but ignored by the reaction point."},
    {"rdma_cnp_received_total", kCounter, "packets", kPort, "",
     "CNPs received (handled plus ignored where the driver counts them separately)."},
    {"rdma_priority_ecn_marked_packets_total", kCounter, "packets", kPort, "priority",
     "Packets of one priority ECN-marked by this device's receive buffer."},
    // Transport
    {"rdma_ack_timeouts_total", kCounter, "events", kPort, "",
     "Requester ACK timer expirations (each leads to a retransmission)."},
    {"rdma_seq_err_naks_total", kCounter, "packets", kPort, "",
     "NAK-sequence-error packets received by the requester (the peer saw a PSN gap)."},
    {"rdma_out_of_sequence_total", kCounter, "packets", kPort, "",
     "Packets the responder received out of sequence (PSN gap: loss upstream)."},
    {"rdma_implied_naks_total", kCounter, "events", kPort, "",
     "Implied NAKs: a response with a PSN beyond the expected one (lost response)."},
    {"rdma_duplicate_requests_total", kCounter, "packets", kPort, "",
     "Duplicate requests received by the responder (the requester retransmitted)."},
    {"rdma_retransmits_total", kCounter, "events", kPort, "",
     "Requester retransmission events (timeouts and sequence NAKs)."},
    {"rdma_adaptive_retransmits_total", kCounter, "events", kPort, "",
     "Adaptive retransmissions (only with lossy-RoCE adaptive retransmission enabled)."},
    {"rdma_adaptive_retransmit_timeouts_total", kCounter, "events", kPort, "",
     "Timeouts reached under adaptive retransmission."},
    {"rdma_retry_exceeded_total", kCounter, "events", kPort, "",
     "Transport retry count exceeded: the QP went to error."},
    {"rdma_rnr_naks_received_total", kCounter, "packets", kPort, "",
     "RNR NAKs received (the remote receiver had no receive WQE posted)."},
    {"rdma_rnr_naks_sent_total", kCounter, "packets", kPort, "",
     "RNR NAKs sent (no receive WQE posted locally)."},
    {"rdma_rnr_retry_exceeded_total", kCounter, "events", kPort, "",
     "RNR retry count exceeded: the QP went to error (an application problem)."},
    {"rdma_req_cqe_errors_total", kCounter, "completions", kPort, "",
     "Requester completions with error."},
    {"rdma_resp_cqe_errors_total", kCounter, "completions", kPort, "",
     "Responder completions with error."},
    {"rdma_cqe_flush_errors_total", kCounter, "completions", kPort, "side",
     "Completions flushed with error (the QP went to error or was torn down)."},
    {"rdma_icrc_errors_total", kCounter, "packets", kPort, "",
     "RoCE packets received with a bad ICRC."},
    // Drops
    {"rdma_out_of_buffer_total", kCounter, "packets", kPort, "",
     "RDMA packets dropped because no receive WQE was posted (RQ/SRQ empty)."},
    {"rdma_eth_out_of_buffer_total", kCounter, "packets", kPort, "",
     "Ethernet (kernel) packets dropped because the receive ring had no buffer."},
    {"rdma_port_discards_total", kCounter, "packets", kPort, "direction",
     "Packets discarded at the port (rx: no port buffer; tx: link down, head of line, pause)."},
    {"rdma_priority_discards_total", kCounter, "packets", kPort, "priority",
     "Received packets of one priority dropped for lack of receive buffer."},
    {"rdma_priority_buffer_discards_total", kCounter, "packets", kPort, "priority",
     "Received packets of one priority dropped by the per-host buffer."},
    {"rdma_priority_congestion_discards_total", kCounter, "packets", kPort, "priority",
     "Received packets of one priority dropped by WRED (congestion discard)."},
    {"rdma_rx_buffer_threshold_events_total", kCounter, "events", kPort, "",
     "Times the port receive buffer passed its fill threshold (mlx5: 85%)."},
    // Physical layer
    {"rdma_link_down_events_total", kCounter, "events", kPort, "", "Link down events (flaps)."},
    {"rdma_symbol_errors_total", kCounter, "events", kPort, "", "Physical coding (symbol) errors."},
    {"rdma_pcs_symbol_errors_total", kCounter, "events", kPort, "",
     "Symbol errors not corrected by FEC (post-FEC errors: traffic was lost)."},
    {"rdma_crc_errors_total", kCounter, "frames", kPort, "",
     "Frames received with a bad FCS (CRC)."},
    {"rdma_phy_received_bit_count_total", kCounter, "bits", kPort, "",
     "Bits received by the PHY (the denominator of bit error ratios)."},
    {"rdma_fec_corrected_bit_errors_total", kCounter, "bits", kPort, "", "Bits corrected by FEC."},
    {"rdma_fec_corrected_blocks_total", kCounter, "blocks", kPort, "", "FEC blocks corrected."},
    {"rdma_fec_uncorrectable_blocks_total", kCounter, "blocks", kPort, "",
     "FEC blocks that could not be corrected."},
    {"rdma_fec_lane_corrected_bit_errors_total", kCounter, "bits", kPort, "lane",
     "Bits corrected by FEC on one PHY lane (one bad lane: a cable/optic/connector fault)."},
    {"rdma_module_events_total", kCounter, "events", kPort, "event",
     "Transceiver module events (unplug, bus_stuck, high_temp, bad_shorted)."},
    {"rdma_oversize_frames_total", kCounter, "frames", kPort, "",
     "Received frames longer than allowed: the peer's MTU is larger than ours."},
    {"rdma_pcie_stall_events_total", kCounter, "events", kPort, "direction",
     "Seconds in which outbound PCIe reads/writes were stalled more than 30% of the time."},
    {"rdma_pcie_buffer_overflow_total", kCounter, "packets", kPort, "",
     "Packets dropped because the PCIe buffer overflowed (host cannot keep up)."},
    {"rdma_pcie_signal_integrity_errors_total", kCounter, "events", kPort, "direction",
     "PCIe physical-layer signal integrity errors."},
    // IB PMA PortCounters error counters (ports/<n>/counters; legacy widths, they saturate)
    {"rdma_port_rcv_errors_total", kCounter, "packets", kPort, "",
     "Packets received with errors (IB PMA PortRcvErrors: bad CRC, malformed, buffer overrun)."},
    {"rdma_port_xmit_discards_total", kCounter, "packets", kPort, "",
     "Outbound packets discarded by the port (IB PMA PortXmitDiscards: port down or "
     "congestion)."},
    {"rdma_port_xmit_wait_total", kCounter, "ticks", kPort, "",
     "Ticks in which the port had data to send but sent none (IB PMA PortXmitWait: "
     "back-pressure)."},
    {"rdma_link_error_recovery_total", kCounter, "events", kPort, "",
     "Successful link error recoveries: the link retrained (IB PMA LinkErrorRecoveryCounter)."},
    {"rdma_local_link_integrity_errors_total", kCounter, "events", kPort, "",
     "Times the local physical errors exceeded the link's threshold (IB PMA "
     "LocalLinkIntegrityErrors)."},
    {"rdma_excessive_buffer_overrun_errors_total", kCounter, "events", kPort, "",
     "Consecutive receive buffer overrun events past the threshold (IB PMA "
     "ExcessiveBufferOverrunErrors)."},
    {"rdma_vl15_dropped_total", kCounter, "packets", kPort, "",
     "Subnet management (VL15) packets dropped for lack of buffer (IB PMA VL15Dropped)."},
    {"rdma_port_rcv_remote_physical_errors_total", kCounter, "packets", kPort, "",
     "Packets received marked bad by an upstream hop (IB PMA PortRcvRemotePhysicalErrors)."},
    {"rdma_port_rcv_switch_relay_errors_total", kCounter, "packets", kPort, "",
     "Received packets the port could not relay (IB PMA PortRcvSwitchRelayErrors)."},
    {"rdma_port_xmit_constraint_errors_total", kCounter, "packets", kPort, "",
     "Packets not sent because of partition/raw constraints (IB PMA PortXmitConstraintErrors)."},
    {"rdma_port_rcv_constraint_errors_total", kCounter, "packets", kPort, "",
     "Received packets dropped by partition/raw constraints (IB PMA PortRcvConstraintErrors)."},
    // Derived from snapshot fields by normalizer.cpp (no table rows); rdma_pfc_enabled also
    // from DCB by host_config_series.cpp.
    {"rdma_netdev_carrier_changes_total", kCounter, "events", kPort, "",
     "Carrier changes of the port's netdev (sysfs carrier_changes): link flaps."},
    {"rdma_port_state", kGauge, "state", kPort, "",
     "IB port state id: 1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE, 5 ACTIVE_DEFER."},
    {"rdma_port_phys_state", kGauge, "state", kPort, "",
     "IB physical port state id: 2 Polling, 3 Disabled, 5 LinkUp, 6 LinkErrorRecovery, ..."},
    {"rdma_port_rate_bytes_per_second", kGauge, "bytes per second", kPort, "",
     "Port rate from the `rate` file (Gb/s x 125e6)."},
    {"rdma_netdev_mtu_bytes", kGauge, "bytes", kPort, "", "MTU of the port's netdev."},
    {"rdma_netdev_up", kGauge, "boolean", kPort, "",
     "1 when the netdev operstate is up (or unknown: drivers that do not track carrier), else 0."},
    {"rdma_port_roce_v2_gids", kGauge, "entries", kPort, "",
     "RoCE v2 GID entries with a routable address (IPv4-mapped or global IPv6)."},
    {"rdma_port_roce_v1_gids", kGauge, "entries", kPort, "",
     "RoCE v1 GID entries with a routable address (IPv4-mapped or global IPv6)."},
    {"rdma_global_pause_enabled", kGauge, "boolean", kPort, "direction",
     "1 when IEEE 802.3x link-level pause is on (ethtool -a; rx: honour received pause, tx: "
     "send pause), else 0."},
    {"rdma_pfc_enabled", kGauge, "boolean", kPort, "priority",
     "1 when PFC is enabled on the priority (mlx5: inferred from ethtool strings), else 0."},
    {"rdma_port_hw_counters", kGauge, "entries", kPort, "",
     "hw_counters the port exposes (its own, plus the device's on its first port); only for "
     "the drivers the table maps."},
    {"rdma_hw_counters_lifespan_seconds", kGauge, "seconds", kPort, "",
     "hw_counters cache lifetime: reads closer together return cached values."},
    {"rdma_saturated", kGauge, "boolean", kPort, "counter",
     "For every series fed by a counter that stops at its width (IB PMA PortCounters): 1 when "
     "it sits at its maximum (its value is a lower bound and its rate reads 0 until the counter "
     "is reset), else 0."},

    // ---- Active prober (probe_series.cpp) ----------------------------------------------------
    // Stream labels (target, group, transport, tclass) are implied on the probe_stream families;
    // the prober families describe the prober itself and have no labels.
    {"rdma_probe_sent_total", kCounter, "probes", kStream, "", "Probes sent on the stream."},
    {"rdma_probe_answered_total", kCounter, "probes", kStream, "",
     "Probes answered by the responder (each contributes one RTT sample)."},
    {"rdma_probe_timeouts_total", kCounter, "probes", kStream, "",
     "Probes not answered within the probe timeout (lost, or the peer stalled)."},
    {"rdma_probe_connect_failures_total", kCounter, "events", kStream, "",
     "Address/route resolution, connect or handshake failures towards the target."},
    {"rdma_probe_qp_errors_total", kCounter, "events", kStream, "",
     "Probe QPs that moved to the error state (each is then reconnected)."},
    {"rdma_probe_wc_errors_total", kCounter, "completions", kStream, "status",
     "Probe work completions with an error status (ibv_wc_status_str text)."},
    {"rdma_probe_retransmits_total", kCounter, "events", kStream, "scope",
     "Transport retransmits attributed to the stream: its own QP counter (scope=qp) or the "
     "port's counter over the probe's lifetime (scope=port, shared with other traffic)."},
    {"rdma_probe_rtt_seconds", kHistogram, "seconds", kStream, "le",
     "Round-trip time of answered probes (cumulative histogram)."},
    {"rdma_probe_rtt_quantile_seconds", kGauge, "seconds", kStream, "window_quantile",
     "RTT quantile over the probes answered since the previous sample (0 = min, 1 = max); "
     "absent when none was answered."},
    {"rdma_probe_up", kGauge, "boolean", kStream, "",
     "1 when the stream was connected to its target at the sample, else 0."},
    {"rdmatop_prober_cpu_seconds_total", kCounter, "seconds", kProber, "",
     "User plus system CPU time used by the prober's threads."},
    {"rdmatop_prober_qps", kGauge, "QPs", kProber, "", "Queue pairs the prober holds."},
    {"rdmatop_prober_registered_bytes", kGauge, "bytes", kProber, "",
     "Memory the prober has registered with RDMA devices."},
    {"rdmatop_prober_targets", kGauge, "targets", kProber, "",
     "Targets the prober is configured with."},

    // ---- Host configuration (host_config_series.cpp and the files it calls) -----------------
    // Port configuration (host_config_series.cpp): DCB and the PFC storm-prevention tunable.
    {"rdma_dcb_trust_dscp", kGauge, "boolean", kPort, "",
     "1 when the DCB APP trust table lists DSCP (traffic is classified by DSCP), 0 when it does "
     "not; absent when the driver reports no trust table"},
    {"rdma_dcb_dscp_priority", kGauge, "1", kPort, "dscp,priority",
     "1 for each DCB APP entry mapping a DSCP value to a priority (selector DSCP)"},
    {"rdma_pfc_storm_prevention_seconds", kGauge, "seconds", kPort, "",
     "PFC storm-prevention timeout the driver applies (ethtool tunable pfc-prevention-tout); "
     "0 = disabled"},
    // Device configuration (host_config_series.cpp): firmware, devlink health, NUMA, IRQs.
    {"rdma_firmware_info", kGauge, "1", kDevice, "driver,running,stored,psid,source",
     "1, with the running and (when the device reports one) stored firmware version and PSID "
     "from devlink (source devlink), else the running version and board id from sysfs "
     "(source sysfs)"},
    {"rdma_firmware_activation_pending", kGauge, "boolean", kDevice, "",
     "1 when the stored (flashed) firmware differs from the running one, else 0"},
    {"rdma_devlink_health_error", kGauge, "boolean", kDevice, "reporter",
     "1 when the devlink health reporter is in the error state, else 0"},
    {"rdma_devlink_health_errors_total", kCounter, "errors", kDevice, "reporter",
     "errors the devlink health reporter has seen"},
    {"rdma_devlink_health_recovers_total", kCounter, "recoveries", kDevice, "reporter",
     "successful recoveries of the devlink health reporter"},
    {"rdma_device_numa_node", kGauge, "node", kDevice, "",
     "NUMA node of the RDMA device's PCI function (absent when the platform has none)"},
    {"rdma_irq_interrupts_total", kCounter, "interrupts", kDevice, "irq,name",
     "interrupts of one MSI/MSI-X vector of the RDMA NIC, summed over CPUs (/proc/interrupts)"},
    // Processes holding RDMA objects (process_series.cpp), labelled pid and comm.
    {"rdma_process_resources", kGauge, "objects", kDevice, "pid,comm,resource",
     "RDMA objects (resource qp, cq, mr, pd) the process holds on the device (RDMA netlink "
     "resource dumps)"},
    {"rdma_process_memlock_limit_bytes", kGauge, "bytes", kHost, "pid,comm",
     "soft RLIMIT_MEMLOCK of a process holding RDMA objects (absent when unlimited)"},
    {"rdma_process_memlock_unlimited", kGauge, "boolean", kHost, "pid,comm",
     "1 when the soft RLIMIT_MEMLOCK of a process holding RDMA objects is unlimited, else 0"},
    {"rdma_process_pinned_bytes", kGauge, "bytes", kHost, "pid,comm",
     "memory the process has pinned (VmPin; RDMA registrations count against RLIMIT_MEMLOCK)"},
    {"rdma_process_cap_ipc_lock", kGauge, "boolean", kHost, "pid,comm",
     "1 when the process has CAP_IPC_LOCK (exempt from RLIMIT_MEMLOCK), else 0"},
    {"rdma_process_numa_mismatch", kGauge, "state", kDevice, "pid,comm",
     "0: the process's allowed CPUs are all on the device's NUMA node; 1: some are not; "
     "2: none are"},
    // QP counters (qp_counter_series.cpp); bound counters labelled by id and owner.
    {"rdma_port_qp_counter_mode", kGauge, "state", kPort, "",
     "QP counter mode of the port (`rdma statistic qp mode`): 0 none, 1 auto, 2 manual"},
    {"rdma_port_qp_counter_auto_mask", kGauge, "bitmask", kPort, "",
     "criteria of the port's auto mode (RDMA_COUNTER_MASK_*): 1 QP type, 2 PID, 3 both; 0 "
     "outside auto mode"},
    {"rdma_port_bound_counters", kGauge, "counters", kPort, "",
     "counters bound to QPs of the port (`rdma statistic qp show`)"},
    {"rdma_bound_counter_qps", kGauge, "QPs", kPort, "counter_id,pid,comm",
     "QPs bound to the counter"},
    {"rdma_bound_counter_hw_total", kCounter, "raw", kPort, "counter_id,pid,comm,hw_counter",
     "one hardware counter (raw driver name in hw_counter) of a counter bound to QPs; the "
     "port's own counters already include it"},

    // ---- Made by the exporter (exporters/prometheus/metrics_collectable.cpp) ----------------
    // Raw driver counters: the kernel's name is a label value (opaque strings that differ per
    // driver and version cannot be metric names); untyped, as some drivers list gauges.
    {"rdma_raw_port_hw_counters", kUntyped, "raw", kExporter, "device,port,counter",
     "Raw per-port hw_counters of an RDMA port "
     "(class/infiniband/<device>/ports/<port>/hw_counters/<counter>)."},
    {"rdma_raw_device_hw_counters", kUntyped, "raw", kExporter, "device,counter",
     "Raw device-scope hw_counters of an RDMA device "
     "(class/infiniband/<device>/hw_counters/<counter>), as the driver reports it."},
    {"rdma_raw_port_pma_counters", kUntyped, "raw", kExporter, "device,port,counter",
     "Raw IB PMA counters of an RDMA port "
     "(class/infiniband/<device>/ports/<port>/counters/<counter>); *_data are "
     "octets divided by 4."},
    {"rdma_raw_ethtool_stats", kUntyped, "raw", kExporter, "netdev,stat",
     "Raw ethtool statistics (`ethtool -S`) of a netdev backing an RDMA port."},
    {"rdma_raw_netdev_statistics", kUntyped, "raw", kExporter, "netdev,statistic",
     "Raw class/net/<netdev>/statistics/<statistic> of a netdev backing an RDMA port."},
    // Identity.
    {"rdma_device_info", kGauge, "1", kExporter,
     "device,driver,fw_ver,board_id,hca_type,node_guid,pci_address",
     "RDMA device identity; always 1."},
    {"rdma_port_info", kGauge, "1", kExporter, "device,port,netdev,link_layer",
     "RDMA port identity; always 1."},
    {"rdma_netdev_info", kGauge, "1", kExporter,
     "netdev,driver,driver_version,firmware_version,bus_info,address",
     "Netdev identity from ETHTOOL_GDRVINFO (`ethtool -i`); always 1. Empty labels: "
     "not readable."},
    // Findings of the rule engine, plus each alert's own labels.
    {"rdmatop_finding", kGauge, "1", kExporter, "alertname,severity,state",
     "A pending or firing finding of rdmatop's rule engine, or a lifetime-evidence finding "
     "of the first collection (state=\"lifetime\"); labels: the alert's; always 1."},
    {"rdmatop_rule_evaluable", kGauge, "boolean", kExporter, "group,rule",
     "1 when every input series a rule needs exists on this host at the last collection, "
     "0 when one is missing (the rule cannot fire here: see rdmatop report's COVERAGE)."},
    {"rdmatop_finding_active_since_timestamp_seconds", kGauge, "seconds (Unix)", kExporter,
     "alertname,severity,state", "When the finding's expression first became true (Unix seconds)."},
    // The exporter itself. process_* keep the names and HELP of the Prometheus client
    // libraries' process collectors, so fleet alerts on exporter cost work unchanged.
    {"rdmatop_build_info", kGauge, "1", kExporter, "version", "rdmatop build; always 1."},
    {"rdmatop_collections_total", kCounter, "collections", kExporter, "",
     "Collections (Monitor steps) completed by the poll loop."},
    {"rdmatop_collection_duration_seconds", kGauge, "seconds", kExporter, "",
     "Time the last collection took: read every source, normalize, evaluate the rules."},
    {"rdmatop_last_collection_timestamp_seconds", kGauge, "seconds (Unix)", kExporter, "",
     "When the last collection finished (Unix seconds). Scrapes serve that collection: "
     "time() minus this is the age of every other value."},
    {"rdmatop_snapshot_timestamp_seconds", kGauge, "seconds (Unix)", kExporter, "",
     "Wall-clock time of the snapshot the served values come from (Unix seconds)."},
    {"rdmatop_source_up", kGauge, "1", kExporter, "source,target",
     "1 when the source was read without error in the last collection (no data, e.g. no "
     "devlink, counts as up), 0 on error."},
    {"rdmatop_source_no_data", kGauge, "1", kExporter, "source,target",
     "1 when the source's subsystem is absent on this host (no devlink, no RDMA device): "
     "up, but nothing was there to read; 0 otherwise."},
    {"rdmatop_source_duration_seconds", kGauge, "seconds", kExporter, "source,target",
     "Time the last collection spent reading this source."},
    {"rdmatop_source_errors_total", kCounter, "collections", kExporter, "source,target",
     "Collections in which reading this source failed (rdmatop_source_up was 0), since "
     "the exporter started."},
    {"process_cpu_seconds_total", kCounter, "seconds", kExporter, "",
     "Total user and system CPU time spent in seconds."},
    {"process_resident_memory_bytes", kGauge, "bytes", kExporter, "",
     "Resident memory size in bytes."},
    {"process_virtual_memory_bytes", kGauge, "bytes", kExporter, "",
     "Virtual memory size in bytes."},
    {"process_open_fds", kGauge, "file descriptors", kExporter, "",
     "Number of open file descriptors."},
    {"process_max_fds", kGauge, "file descriptors", kExporter, "",
     "Maximum number of open file descriptors."},
    {"process_start_time_seconds", kGauge, "seconds (Unix)", kExporter, "",
     "Start time of the process since unix epoch in seconds."},
    {"rdmatop_rule_errors", kGauge, "errors", kExporter, "",
     "Rule files that failed to load plus rule evaluation errors in the last collection."},
};

// [a-z][a-z0-9_]*: a subset of Prometheus names; digits only for "roce_v2"-style names.
constexpr bool valid_name(std::string_view name) {
  if (name.empty() || name.front() < 'a' || name.front() > 'z') return false;
  for (const char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

// A broken row fails the build, not a scrape: counters and only counters end in _total (a
// histogram's parts are named by find_metric), and no name appears twice.
constexpr bool catalogue_valid() {
  for (std::size_t i = 0; i < std::size(kCatalogue); ++i) {
    const MetricInfo& m = kCatalogue[i];
    if (!valid_name(m.name) || m.unit.empty() || m.help.empty()) return false;
    if ((m.kind == MetricKind::counter) != m.name.ends_with("_total")) return false;
    for (std::size_t j = 0; j < i; ++j) {
      if (kCatalogue[j].name == m.name) return false;
    }
  }
  return true;
}
static_assert(catalogue_valid(), "metric catalogue: bad name, kind/_total mismatch, or duplicate");

constexpr std::array<std::string_view, 3> kHistogramSuffixes = {"_bucket", "_sum", "_count"};

// Looked up for every series of every tick (pipeline/tick.cpp, the exporter): a hash of the
// names, built once, not a scan of the rows.
const std::unordered_map<std::string_view, const MetricInfo*>& by_name() {
  static const auto kByName = [] {
    std::unordered_map<std::string_view, const MetricInfo*> out;
    for (const MetricInfo& m : kCatalogue) out.emplace(m.name, &m);
    return out;
  }();
  return kByName;
}

}  // namespace

std::span<const MetricInfo> metric_catalogue() {
  return kCatalogue;
}

const MetricInfo* find_metric(std::string_view series_name) {
  const auto& names = by_name();
  if (const auto it = names.find(series_name); it != names.end()) return it->second;
  for (const std::string_view suffix : kHistogramSuffixes) {
    if (!series_name.ends_with(suffix)) continue;
    const auto it = names.find(series_name.substr(0, series_name.size() - suffix.size()));
    if (it != names.end() && it->second->kind == MetricKind::histogram) return it->second;
  }
  return nullptr;
}

bool is_probe_metric(const MetricInfo& info) {
  return info.scope == MetricScope::probe_stream || info.scope == MetricScope::prober;
}

const char* to_string(MetricKind kind) {
  switch (kind) {
    case MetricKind::counter:
      return "counter";
    case MetricKind::gauge:
      return "gauge";
    case MetricKind::histogram:
      return "histogram";
    case MetricKind::untyped:
      return "untyped";
  }
  return "unknown";
}

const char* to_string(MetricScope scope) {
  switch (scope) {
    case MetricScope::port:
      return "port";
    case MetricScope::device:
      return "device";
    case MetricScope::host:
      return "host";
    case MetricScope::probe_stream:
      return "probe_stream";
    case MetricScope::prober:
      return "prober";
    case MetricScope::exporter:
      return "exporter";
  }
  return "unknown";
}

}  // namespace rdmatop
