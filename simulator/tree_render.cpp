#include "simulator/tree_render.h"

#include <cmath>
#include <cstdio>
#include <utility>
#include <vector>

namespace rdmatop::sim {

namespace {

using Pairs = std::vector<std::pair<std::string, std::uint64_t>>;

constexpr int k32 = 32;
constexpr const char* kKernel = "6.10.14";
constexpr const char* kZeroGid = "0000:0000:0000:0000:0000:0000:0000:0000";
constexpr int kGidFiles = 8;  // a real mlx5 table has 255 entries; 8 files are enough here

// ------------------------------------------------------------------------------------------
// Small text helpers (formats: docs/domain.md#sysfs-formats, fixture generator
// make_fixture_hosts.py)
// ------------------------------------------------------------------------------------------
std::vector<int> mac_bytes(const std::string& mac) {
  std::vector<int> out;
  for (std::size_t i = 0; i < mac.size(); i += 3) {
    out.push_back(std::stoi(mac.substr(i, 2), nullptr, 16));
  }
  return out;
}

std::string hex4(int a, int b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%02x%02x", a & 0xff, b & 0xff);
  return buf;
}

/// fe80::/64 with the EUI-64 interface id of the MAC (U/L bit flipped, ff:fe inserted).
std::string link_local_gid(const std::string& mac) {
  const auto b = mac_bytes(mac);
  return "fe80:0000:0000:0000:" + hex4(b[0] ^ 0x02, b[1]) + ":" + hex4(b[2], 0xff) + ":" +
         hex4(0xfe, b[3]) + ":" + hex4(b[4], b[5]);
}

std::string ipv4_mapped_gid(const std::string& ip) {
  int a = 0, b = 0, c = 0, d = 0;
  std::sscanf(ip.c_str(), "%d.%d.%d.%d", &a, &b, &c, &d);
  return "0000:0000:0000:0000:0000:ffff:" + hex4(a, b) + ":" + hex4(c, d);
}

/// ConnectX GUIDs put 03:00 between the OUI and the NIC-specific bytes of the MAC.
std::string mellanox_guid(const std::string& mac) {
  const auto b = mac_bytes(mac);
  return hex4(b[0], b[1]) + ":" + hex4(b[2], 0x03) + ":" + hex4(0x00, b[3]) + ":" +
         hex4(b[4], b[5]);
}

/// The EUI-64 GUID of a MAC (bnxt_re).
std::string eui64_guid(const std::string& mac) {
  return link_local_gid(mac).substr(20);
}

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t slash = path.find('/', start);
    const std::size_t end = slash == std::string::npos ? path.size() : slash;
    if (end > start) parts.push_back(path.substr(start, end - start));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return parts;
}

/// The link text sysfs writes for a link in `from_dir` pointing at `to` (both relative to the
/// sysfs root): climb to the common ancestor, then descend (fs/kernfs/symlink.c
/// kernfs_get_target_path).
std::string relative(const std::string& from_dir, const std::string& to) {
  const auto from = split_path(from_dir);
  const auto target = split_path(to);
  std::size_t common = 0;
  while (common < from.size() && common + 1 < target.size() && from[common] == target[common]) {
    ++common;
  }
  std::string out;
  for (std::size_t i = common; i < from.size(); ++i) out += "../";
  for (std::size_t i = common; i < target.size(); ++i) {
    out += target[i];
    if (i + 1 < target.size()) out += '/';
  }
  return out;
}

std::string dirname(const std::string& path) {
  return path.substr(0, path.rfind('/'));
}

std::string ethtool_stats_text(const Pairs& pairs) {
  std::string out = "NIC statistics:\n";
  for (const auto& [name, value] : pairs) {
    out += "     " + name + ": " + std::to_string(value) + "\n";
  }
  return out;
}

// ------------------------------------------------------------------------------------------
// The image under construction
// ------------------------------------------------------------------------------------------
class Builder {
 public:
  explicit Builder(TreeImage& image) : image_(image) {}

  void file(const std::string& sys_rel, std::string content) {
    image_.files["sys/" + sys_rel] = std::move(content);
  }
  void value(const std::string& sys_rel, std::uint64_t v) {
    file(sys_rel, std::to_string(v) + "\n");
  }
  void line(const std::string& sys_rel, const std::string& text) { file(sys_rel, text + "\n"); }
  void link(const std::string& sys_rel, const std::string& target_sys_rel) {
    image_.links["sys/" + sys_rel] = relative(dirname(sys_rel), target_sys_rel);
  }
  void ethtool(const std::string& name, std::string content) {
    image_.files["ethtool/" + name] = std::move(content);
  }

 private:
  TreeImage& image_;
};

/// A port's counters, read as the driver prints them.
class Counters {
 public:
  explicit Counters(const PortState& p) : p_(p) {}
  std::uint64_t operator()(const char* name, int width = 0) const {
    const auto it = p_.counters.find(name);
    return printed_value(it == p_.counters.end() ? 0 : it->second, width);
  }

 private:
  const PortState& p_;
};

// ------------------------------------------------------------------------------------------
// Shared sysfs objects
// ------------------------------------------------------------------------------------------
void pci_function(Builder& b, const std::string& fn, const char* driver, const char* vendor,
                  const char* device, std::int32_t numa_node) {
  b.line(fn + "/vendor", vendor);
  b.line(fn + "/device", device);
  // drivers/pci/pci-sysfs.c numa_node_show: "%d\n", -1 without NUMA affinity.
  b.line(fn + "/numa_node", std::to_string(numa_node));
  b.link(fn + "/driver", std::string("bus/pci/drivers/") + driver);
  b.line(std::string("bus/pci/drivers/") + driver + "/uevent", std::string("DRIVER=") + driver);
}

void port_attrs(Builder& b, const std::string& p, const PortState& port) {
  const bool up = port.conditions.link_up;
  const bool rxe = port.spec.kind == NicKind::rxe;
  // mlx5_query_port_roce / bnxt_re: ACTIVE + LinkUp with carrier, else DOWN + Disabled; with no
  // operational PTYS mode mlx5 keeps its 4X QDR default rate (docs/domain.md#port-rate). rxe
  // derives its rate from the netdev's speed (ib_get_eth_speed: 10 GbE is 1X FDR10).
  b.line(p + "/state", up ? "4: ACTIVE" : "1: DOWN");
  b.line(p + "/phys_state", up ? "5: LinkUp" : "3: Disabled");
  if (rxe) {
    b.line(p + "/rate", "10 Gb/sec (1X FDR10)");
  } else {
    b.line(p + "/rate", up ? "100 Gb/sec (4X EDR)" : "40 Gb/sec (4X QDR)");
  }
  b.line(p + "/link_layer", "Ethernet");
  b.line(p + "/lid", "0x0");
  b.line(p + "/sm_lid", "0x0");
  b.line(p + "/lid_mask_count", "0");
  b.line(p + "/sm_sl", "0");
  b.line(p + "/cap_mask", rxe ? "0x00010000" : "0x04010000");
  b.line(p + "/pkeys/0", "0xffff");
  // Every address gets a v1 and a v2 entry, link-local first (docs/domain.md#gid-table); rxe
  // supports RoCE v2 only. Unpopulated gid_attrs entries fail with EINVAL on a real kernel;
  // here they are absent.
  const std::string ll = link_local_gid(port.spec.mac);
  std::vector<std::pair<std::string, const char*>> gids;
  auto add_gid = [&](const std::string& gid) {
    if (!rxe) gids.emplace_back(gid, "IB/RoCE v1");
    gids.emplace_back(gid, "RoCE v2");
  };
  add_gid(ll);
  if (port.conditions.routable_gid) add_gid(ipv4_mapped_gid(port.spec.ipv4));
  for (int i = 0; i < kGidFiles; ++i) {
    const std::string idx = std::to_string(i);
    const bool populated = static_cast<std::size_t>(i) < gids.size();
    b.line(p + "/gids/" + idx, populated ? gids[i].first : kZeroGid);
    if (populated) {
      b.line(p + "/gid_attrs/types/" + idx, gids[i].second);
      b.line(p + "/gid_attrs/ndevs/" + idx, port.spec.netdev);
    }
  }
}

void netdev(Builder& b, const std::string& fn, const PortState& port) {
  const Counters c(port);
  // Soft-RoCE sends its packets through the netdev, so they count there too (a RoCE NIC's
  // offloaded traffic does not).
  const bool rxe = port.spec.kind == NicKind::rxe;
  auto with_rdma = [&](const char* eth, const char* rdma) { return c(eth) + (rxe ? c(rdma) : 0); };
  const bool up = port.conditions.link_up;
  const std::string base = fn + "/net/" + port.spec.netdev;
  b.line(base + "/address", port.spec.mac);
  b.line(base + "/broadcast", "ff:ff:ff:ff:ff:ff");
  b.value(base + "/mtu", port.conditions.mtu);
  b.value(base + "/ifindex", port.spec.ifindex);
  b.line(base + "/type", "1");
  // An IFF_UP netdev without carrier: operstate down, carrier 0, speed -1 (net-sysfs.c).
  b.line(base + "/operstate", up ? "up" : "down");
  b.line(base + "/carrier", up ? "1" : "0");
  b.value(base + "/carrier_changes", c("carrier_changes"));
  b.line(base + "/speed", up ? std::to_string(static_cast<int>(port.spec.gbps * 1000)) : "-1");
  b.line(base + "/duplex", up ? "full" : "unknown");
  const std::pair<const char*, std::uint64_t> stats[] = {
      {"collisions", 0},
      {"multicast", 0},
      {"rx_bytes", with_rdma("eth_rx_bytes", "rdma_rx_bytes")},
      {"rx_compressed", 0},
      {"rx_crc_errors", c("crc_errors")},
      {"rx_dropped", 0},
      {"rx_errors", c("crc_errors")},
      {"rx_fifo_errors", 0},
      {"rx_frame_errors", 0},
      {"rx_length_errors", c("oversize_frames")},
      {"rx_missed_errors", 0},
      {"rx_nohandler", 0},
      {"rx_over_errors", 0},
      {"rx_packets", with_rdma("eth_rx_packets", "rdma_rx_packets")},
      {"tx_aborted_errors", 0},
      {"tx_bytes", with_rdma("eth_tx_bytes", "rdma_tx_bytes")},
      {"tx_carrier_errors", 0},
      {"tx_compressed", 0},
      {"tx_dropped", 0},
      {"tx_errors", 0},
      {"tx_fifo_errors", 0},
      {"tx_heartbeat_errors", 0},
      {"tx_packets", with_rdma("eth_tx_packets", "rdma_tx_packets")},
      {"tx_window_errors", 0},
  };
  for (const auto& [name, v] : stats) b.value(base + "/statistics/" + name, v);
  b.link(base + "/device", fn);
  b.link("class/net/" + port.spec.netdev, base);
}

std::string pause_text(const PortState& port, std::uint64_t tx_frames, std::uint64_t rx_frames) {
  // `ethtool -I -a` (ethtool netlink/pause.c): global 802.3x pause is off on a PFC fabric
  // unless the scenario turns it on (`global_pause`).
  const char* on = port.conditions.global_pause ? "on" : "off";
  return "Pause parameters for " + port.spec.netdev + ":\nAutonegotiate:\toff\nRX:\t\t" + on +
         "\nTX:\t\t" + on + "\nStatistics:\n  tx_pause_frames: " + std::to_string(tx_frames) +
         "\n  rx_pause_frames: " + std::to_string(rx_frames) + "\n\n";
}

std::string info_text(const char* driver, const std::string& fw, const std::string& bus) {
  return std::string("driver: ") + driver + "\nversion: " + kKernel + "\nfirmware-version: " + fw +
         "\nexpansion-rom-version: \nbus-info: " + bus +
         "\nsupports-statistics: yes\nsupports-test: yes\nsupports-eeprom-access: no\n"
         "supports-register-dump: no\nsupports-priv-flags: yes\n";
}

// ------------------------------------------------------------------------------------------
// mlx5 (ConnectX-6 Dx): mlx5/counters.c, mlx5/mad.c, mlx5e en_stats.c
// (docs/domain.md#counter-widths). Q-counters are 32-bit; congestion and PPCNT counters 64-bit.
// ------------------------------------------------------------------------------------------
Pairs mlx5_hw_counters(const Counters& c) {
  return {
      {"rx_write_requests", c("rx_write_requests", k32)},
      {"rx_read_requests", c("rx_read_requests", k32)},
      {"rx_atomic_requests", 0},
      {"rx_dct_connect", 0},
      {"out_of_buffer", c("out_of_buffer", k32)},
      {"out_of_sequence", c("out_of_sequence", k32)},
      {"duplicate_request", c("duplicate_requests", k32)},
      // Received RNR NAKs, retried (NVIDIA's mlx5 counter documentation; docs/domain.md).
      {"rnr_nak_retry_err", c("rnr_naks_received", k32)},
      {"packet_seq_err", c("seq_err_naks", k32)},
      {"implied_nak_seq_err", c("implied_naks", k32)},
      {"local_ack_timeout_err", c("ack_timeouts", k32)},
      {"resp_local_length_error", 0},
      {"resp_cqe_error", 0},
      {"req_cqe_error", printed_value(static_cast<double>(c("retry_exceeded")) +
                                          static_cast<double>(c("rnr_retry_exceeded")),
                                      k32)},
      {"req_remote_invalid_request", 0},
      {"req_remote_access_errors", 0},
      {"resp_remote_access_errors", 0},
      {"resp_cqe_flush_error", 0},
      {"req_cqe_flush_error", c("retry_exceeded", k32)},
      {"req_transport_retries_exceeded", c("retry_exceeded", k32)},
      {"req_rnr_retries_exceeded", c("rnr_retry_exceeded", k32)},
      {"roce_adp_retrans", 0},
      {"roce_adp_retrans_to", 0},
      {"roce_slow_restart", 0},
      {"roce_slow_restart_cnps", 0},
      {"roce_slow_restart_trans", 0},
      {"rp_cnp_ignored", c("cnp_ignored")},
      {"rp_cnp_handled", c("cnp_handled")},
      {"np_ecn_marked_roce_packets", c("ecn_marked")},
      {"np_cnp_sent", c("cnp_sent")},
      {"rx_icrc_encapsulated", 0},
  };
}

Pairs mlx5_ethtool(const PortState& port) {
  const Counters c(port);
  const std::uint64_t eth_rx = c("eth_rx_packets"), eth_tx = c("eth_tx_packets");
  const std::uint64_t rdma_rx = c("rdma_rx_packets"), rdma_tx = c("rdma_tx_packets");
  const std::uint64_t tx_pause = c("tx_pause_frames"), rx_pause = c("rx_pause_frames");
  const std::uint64_t tx_global = c("tx_global_pause_frames");
  const std::uint64_t rx_global = c("rx_global_pause_frames");
  const std::uint64_t symbol = c("symbol_errors"), corrected = c("fec_corrected_bits");
  Pairs s = {
      // sw
      {"rx_packets", eth_rx},
      {"rx_bytes", c("eth_rx_bytes")},
      {"tx_packets", eth_tx},
      {"tx_bytes", c("eth_tx_bytes")},
      {"rx_ecn_mark", 0},
      // qcnt: the Ethernet RQ Q-counter (32-bit), not the RDMA out_of_buffer
      {"rx_out_of_buffer", 0},
      {"rx_if_down_packets", 0},
      // vnic_env
      {"rx_steer_missed_packets", 0},
      {"dev_internal_queue_oob", 0},
      // vport
      {"rx_vport_unicast_packets", eth_rx},
      {"rx_vport_unicast_bytes", c("eth_rx_bytes")},
      {"tx_vport_unicast_packets", eth_tx},
      {"tx_vport_unicast_bytes", c("eth_tx_bytes")},
      {"rx_vport_rdma_unicast_packets", rdma_rx},
      {"rx_vport_rdma_unicast_bytes", c("rdma_rx_bytes")},
      {"tx_vport_rdma_unicast_packets", rdma_tx},
      {"tx_vport_rdma_unicast_bytes", c("rdma_tx_bytes")},
      {"rx_vport_rdma_multicast_packets", 0},
      {"rx_vport_rdma_multicast_bytes", 0},
      {"tx_vport_rdma_multicast_packets", 0},
      {"tx_vport_rdma_multicast_bytes", 0},
      // 802_3 (mlx5 counts PFC frames in the pause/MAC-control counters too,
      // docs/domain.md#ethtool-statistics)
      {"tx_packets_phy", eth_tx + rdma_tx + tx_pause + tx_global},
      {"rx_packets_phy", eth_rx + rdma_rx + rx_pause + rx_global},
      {"rx_crc_errors_phy", c("crc_errors")},
      {"tx_bytes_phy", c("eth_tx_bytes") + c("rdma_tx_bytes")},
      {"rx_bytes_phy", c("eth_rx_bytes") + c("rdma_rx_bytes")},
      {"rx_in_range_len_errors_phy", 0},
      {"rx_out_of_range_len_phy", c("oversize_frames")},
      {"rx_oversize_pkts_phy", c("oversize_frames")},
      {"rx_symbol_err_phy", symbol},
      {"tx_mac_control_phy", tx_pause + tx_global},
      {"rx_mac_control_phy", rx_pause + rx_global},
      {"rx_unsupported_op_phy", 0},
      {"rx_pause_ctrl_phy", rx_pause + rx_global},
      {"tx_pause_ctrl_phy", tx_pause + tx_global},
      // 2863
      {"rx_discards_phy", c("lossless_drops")},
      {"tx_discards_phy", 0},
      {"tx_errors_phy", 0},
      // phy (link_down_events_phy is a 32-bit field)
      {"link_down_events_phy", c("link_down_events", k32)},
      {"rx_pcs_symbol_err_phy", symbol},
      {"rx_corrected_bits_phy", corrected},
      {"rx_bits_phy", c("rx_bits")},
  };
  // Per-lane corrected bits: lane 0 carries `fec_lane_skew` of them, the others share the rest.
  const std::uint64_t lane0 = std::min(c("fec_lane0_corrected_bits"), corrected);
  for (int lane = 0; lane < 4; ++lane) {
    s.emplace_back("rx_err_lane_" + std::to_string(lane) + "_phy",
                   lane == 0 ? lane0 : (corrected - lane0) / 3);
  }
  s.insert(s.end(), {{"rx_buffer_passed_thres_phy", 0},
                     {"rx_pci_signal_integrity", c("pcie_signal_errors", k32)},
                     {"tx_pci_signal_integrity", 0},
                     {"outbound_pci_buffer_overflow", 0},
                     {"outbound_pci_stalled_rd", 0},
                     {"outbound_pci_stalled_wr", 0},
                     {"outbound_pci_stalled_rd_events", c("pcie_stalled_rd_s", k32)},
                     {"outbound_pci_stalled_wr_events", 0}});
  // per_prio traffic, always: kernel traffic on priority 0, RoCE on the RoCE priority.
  for (int p = 0; p < 8; ++p) {
    const std::string n = std::to_string(p);
    const bool roce = p == kRocePriority;
    const bool eth = p == 0;
    s.emplace_back("rx_prio" + n + "_bytes",
                   roce ? c("rdma_rx_bytes") : (eth ? c("eth_rx_bytes") : 0));
    s.emplace_back("rx_prio" + n + "_packets", roce ? rdma_rx : (eth ? eth_rx : 0));
    s.emplace_back("rx_prio" + n + "_discards", roce ? c("lossless_drops") : 0);
    s.emplace_back("tx_prio" + n + "_bytes",
                   roce ? c("rdma_tx_bytes") : (eth ? c("eth_tx_bytes") : 0));
    s.emplace_back("tx_prio" + n + "_packets", roce ? rdma_tx : (eth ? eth_tx : 0));
  }
  // per_prio PFC: only for PFC-enabled priorities; durations in µs.
  if (port.conditions.pfc) {
    const std::string n = std::to_string(kRocePriority);
    s.insert(s.end(), {{"rx_prio" + n + "_pause", rx_pause},
                       {"rx_prio" + n + "_pause_duration", c("rx_pause_us")},
                       {"tx_prio" + n + "_pause", tx_pause},
                       {"tx_prio" + n + "_pause_duration", c("tx_pause_us")},
                       {"rx_prio" + n + "_pause_transition", c("rx_pause_transitions")}});
  }
  // per_prio PFC group with "global": only while 802.3x pause is on in either direction
  // (en_stats.c pport_per_prio_pfc_stats_desc, mlx5e_query_global_pause_combined).
  if (port.conditions.global_pause) {
    s.insert(s.end(), {{"rx_global_pause", rx_global},
                       {"rx_global_pause_duration", c("rx_global_pause_us")},
                       {"tx_global_pause", tx_global},
                       {"tx_global_pause_duration", c("tx_global_pause_us")},
                       {"rx_global_pause_transition", 0}});
  }
  s.insert(s.end(), {{"tx_pause_storm_warning_events", c("storm_warnings")},
                     {"tx_pause_storm_error_events", c("storm_errors")},
                     {"module_unplug", 0},
                     {"module_bus_stuck", 0},
                     {"module_high_temp", 0},
                     {"module_bad_shorted", 0}});
  for (int p = 0; p < 8; ++p) {
    const std::string n = std::to_string(p);
    s.insert(s.end(), {{"rx_prio" + n + "_buf_discard", 0},
                       {"rx_prio" + n + "_cong_discard", 0},
                       {"rx_prio" + n + "_marked", 0}});
  }
  return s;
}

void mlx5_port(Builder& b, const PortState& port) {
  const PortSpec& spec = port.spec;
  const Counters c(port);
  const std::string fn = "devices/" + spec.pci_path + "/" + spec.pci;
  pci_function(b, fn, "mlx5_core", "0x15b3", "0x101d", spec.numa_node);
  const std::string dev = fn + "/infiniband/" + spec.device;
  b.line(dev + "/node_type", "1: CA");
  b.line(dev + "/node_guid", mellanox_guid(spec.mac));
  b.line(dev + "/sys_image_guid", mellanox_guid(spec.mac.substr(0, 15) + "c4"));
  b.line(dev + "/fw_ver", running_fw(port));
  b.line(dev + "/node_desc", spec.node_desc);
  b.line(dev + "/hca_type", "MT4125");
  b.line(dev + "/hw_rev", "0");
  b.line(dev + "/board_id", spec.psid);
  b.line(dev + "/fw_pages", "48326");
  b.line(dev + "/reg_pages", "0");
  b.link(dev + "/device", fn);
  b.link("class/infiniband/" + spec.device, dev);
  const Pairs hw = mlx5_hw_counters(c);
  const std::string p = dev + "/ports/" + std::to_string(spec.port);
  port_attrs(b, p, port);
  // The port's hw_counters only: outside switchdev mode mlx5 installs alloc_hw_port_stats and
  // no alloc_hw_device_stats (mlx5/counters.c, mlx5_ib_counters_init), so the core makes no
  // device-scope hw_counters/ (core/sysfs.c, alloc_hw_stats_device).
  for (const auto& [name, v] : hw) b.value(p + "/hw_counters/" + name, v);
  b.line(p + "/hw_counters/lifespan", "10");
  // PMA on RoCE: vport RDMA counters, data in octets / 4 (mad.c pma_cnt_ext_assign); the IB
  // error counters (PPCNT InfiniBand group, mad.c pma_cnt_assign) read 0 unless a scenario
  // makes them count (pma_*), and then saturate at their PortCounters widths.
  const auto pma_error = [&](const char* name, int width) {
    return std::min(c(name), (std::uint64_t{1} << width) - 1);
  };
  const std::pair<const char*, std::uint64_t> pma[] = {
      {"symbol_error", 0},
      {"link_error_recovery", pma_error("pma_link_recoveries", 8)},
      {"link_downed", 0},
      {"port_rcv_errors", pma_error("pma_rcv_errors", 16)},
      {"port_rcv_remote_physical_errors", 0},
      {"port_rcv_switch_relay_errors", 0},
      {"port_xmit_discards", pma_error("pma_xmit_discards", 16)},
      {"port_xmit_constraint_errors", 0},
      {"port_rcv_constraint_errors", 0},
      {"local_link_integrity_errors", pma_error("pma_integrity_errors", 4)},
      {"excessive_buffer_overrun_errors", 0},
      {"VL15_dropped", 0},
      {"port_xmit_wait", pma_error("pma_xmit_wait", 32)},
      {"port_xmit_data", c("rdma_tx_bytes") / 4},
      {"port_rcv_data", c("rdma_rx_bytes") / 4},
      {"port_xmit_packets", c("rdma_tx_packets")},
      {"port_rcv_packets", c("rdma_rx_packets")},
      {"unicast_xmit_packets", c("rdma_tx_packets")},
      {"unicast_rcv_packets", c("rdma_rx_packets")},
      {"multicast_xmit_packets", 0},
      {"multicast_rcv_packets", 0},
  };
  for (const auto& [name, v] : pma) b.value(p + "/counters/" + name, v);
  netdev(b, fn, port);
  b.ethtool(spec.netdev + ".txt", ethtool_stats_text(mlx5_ethtool(port)));
  b.ethtool(spec.netdev + ".info",
            info_text("mlx5_core", running_fw(port) + " (" + spec.psid + ")", spec.pci));
  b.ethtool(spec.netdev + ".pause",
            pause_text(port, c("tx_pause_frames") + c("tx_global_pause_frames"),
                       c("rx_pause_frames") + c("rx_global_pause_frames")));
}

// ------------------------------------------------------------------------------------------
// bnxt_re / bnxt_en (BCM57508): bnxt_re/hw_counters.c (u64), bnxt_ethtool.c
// (docs/domain.md#counter-widths). RoCE on CoS 1, kernel traffic on CoS 0.
// ------------------------------------------------------------------------------------------
Pairs bnxt_re_counters(const Counters& c) {
  const std::uint64_t rx = c("rdma_rx_packets"), tx = c("rdma_tx_packets");
  return {
      {"active_pds", 18},
      {"active_ahs", 0},
      {"active_qps", 134},
      {"active_rc_qps", 130},
      {"active_ud_qps", 4},
      {"active_srqs", 0},
      {"active_cqs", 150},
      {"active_mrs", 262},
      {"active_mws", 0},
      {"watermark_qps", 262},
      {"rx_pkts", rx},
      {"rx_bytes", c("rdma_rx_bytes")},
      {"tx_pkts", tx},
      {"tx_bytes", c("rdma_tx_bytes")},
      {"recoverable_errors", 0},
      {"to_retransmits", c("ack_timeouts")},
      {"seq_err_naks_rcvd", c("seq_err_naks")},
      {"max_retry_exceeded", c("retry_exceeded")},
      {"rnr_naks_rcvd", c("rnr_naks_received")},
      {"missing_resp", c("implied_naks")},
      {"dup_req", c("duplicate_requests")},
      {"oos_drop_count", c("out_of_sequence")},
      {"tx_roce_only_pkts", tx},
      {"tx_roce_only_bytes", c("rdma_tx_bytes")},
      {"rx_roce_only_pkts", rx},
      {"rx_roce_only_bytes", c("rdma_rx_bytes")},
      {"rx_roce_good_pkts", rx},
      {"rx_roce_good_bytes", c("rdma_rx_bytes")},
      {"rx_out_of_buffer", c("out_of_buffer")},
      {"tx_cnp_pkts", c("cnp_sent")},
      {"rx_cnp_pkts", c("cnp_handled") + c("cnp_ignored")},
      {"rx_ecn_marked_pkts", c("ecn_marked")},
  };
}

Pairs bnxt_ethtool(const PortState& port) {
  const Counters c(port);
  const std::uint64_t storms = c("storm_warnings") + c("storm_errors");
  Pairs s = {
      {"rx_good_frames", c("eth_rx_packets") + c("rdma_rx_packets")},
      {"rx_fcs_err_frames", c("crc_errors")},
      {"rx_pause_frames", c("rx_global_pause_frames")},
      {"rx_pfc_frames", c("rx_pause_frames")},
      {"rx_mtu_err_frames", c("oversize_frames")},
      {"rx_stat_discard", c("lossless_drops")},
      {"tx_good_frames", c("eth_tx_packets") + c("rdma_tx_packets")},
      {"tx_pause_frames", c("tx_global_pause_frames")},
      {"tx_pfc_frames", c("tx_pause_frames")},
      {"tx_stat_discard", 0},
  };
  for (int p = 0; p < 8; ++p) {
    s.emplace_back("rx_pfc_ena_frames_pri" + std::to_string(p),
                   p == kRocePriority ? c("rx_pause_frames") : 0);
  }
  for (int p = 0; p < 8; ++p) {
    s.emplace_back("tx_pfc_ena_frames_pri" + std::to_string(p),
                   p == kRocePriority ? c("tx_pause_frames") : 0);
  }
  s.insert(s.end(), {{"link_down_events", c("link_down_events")},
                     {"continuous_pause_events", 0},
                     {"resume_pause_events", 0},
                     {"continuous_roce_pause_events", storms},
                     {"resume_roce_pause_events", storms}});
  // CoS queues: 0 kernel traffic, 1 RoCE.
  auto cos = [&](const char* fmt, const char* eth, const char* roce) {
    for (int q = 0; q < 8; ++q) {
      char name[40];
      std::snprintf(name, sizeof name, fmt, q);
      s.emplace_back(name, q == 0 ? c(eth) : (q == 1 ? c(roce) : 0));
    }
  };
  cos("rx_bytes_cos%d", "eth_rx_bytes", "rdma_rx_bytes");
  cos("rx_packets_cos%d", "eth_rx_packets", "rdma_rx_packets");
  for (int p = 0; p < 8; ++p) {
    const bool roce = p == kRocePriority;
    s.emplace_back("pfc_pri" + std::to_string(p) + "_rx_duration_us", roce ? c("rx_pause_us") : 0);
    s.emplace_back("pfc_pri" + std::to_string(p) + "_rx_transitions",
                   roce ? c("rx_pause_transitions") : 0);
  }
  s.insert(s.end(), {{"rx_bits", c("rx_bits")},
                     {"rx_buffer_passed_threshold", 0},
                     {"rx_pcs_symbol_err", c("symbol_errors")},
                     {"rx_corrected_bits", c("fec_corrected_bits")}});
  for (int q = 0; q < 8; ++q) {
    s.emplace_back("rx_discard_bytes_cos" + std::to_string(q), 0);
    s.emplace_back("rx_discard_packets_cos" + std::to_string(q), q == 1 ? c("lossless_drops") : 0);
  }
  // RS(544,514) FEC blocks are 5440 bits: corrected blocks follow the corrected bits.
  s.emplace_back("rx_fec_corrected_blocks", c("fec_corrected_bits") / 5440);
  s.emplace_back("rx_fec_uncorrectable_blocks", 0);
  cos("tx_bytes_cos%d", "eth_tx_bytes", "rdma_tx_bytes");
  cos("tx_packets_cos%d", "eth_tx_packets", "rdma_tx_packets");
  for (int p = 0; p < 8; ++p) {
    const bool roce = p == kRocePriority;
    s.emplace_back("pfc_pri" + std::to_string(p) + "_tx_duration_us", roce ? c("tx_pause_us") : 0);
    s.emplace_back("pfc_pri" + std::to_string(p) + "_tx_transitions",
                   roce ? c("tx_pause_transitions") : 0);
  }
  // Per-priority traffic (pri2cos_valid).
  for (int p = 0; p < 8; ++p) {
    const std::string n = std::to_string(p);
    const bool roce = p == kRocePriority;
    const bool eth = p == 0;
    s.emplace_back("rx_bytes_pri" + n, roce ? c("rdma_rx_bytes") : (eth ? c("eth_rx_bytes") : 0));
    s.emplace_back("rx_packets_pri" + n,
                   roce ? c("rdma_rx_packets") : (eth ? c("eth_rx_packets") : 0));
    s.emplace_back("tx_bytes_pri" + n, roce ? c("rdma_tx_bytes") : (eth ? c("eth_tx_bytes") : 0));
    s.emplace_back("tx_packets_pri" + n,
                   roce ? c("rdma_tx_packets") : (eth ? c("eth_tx_packets") : 0));
  }
  return s;
}

void bnxt_port(Builder& b, const PortState& port) {
  const PortSpec& spec = port.spec;
  const Counters c(port);
  const std::string fn = "devices/" + spec.pci_path + "/" + spec.pci;
  pci_function(b, fn, "bnxt_en", "0x14e4", "0x1750", spec.numa_node);
  const std::string dev = fn + "/infiniband/" + spec.device;
  const std::string guid = eui64_guid(spec.mac);
  b.line(dev + "/node_type", "1: CA");
  b.line(dev + "/node_guid", guid);
  b.line(dev + "/sys_image_guid", guid);
  b.line(dev + "/fw_ver", running_fw(port));
  b.line(dev + "/node_desc", spec.node_desc);
  b.line(dev + "/hca_type", spec.node_desc);  // bnxt_re hca_type_show prints node_desc
  b.line(dev + "/hw_rev", "0x14e4");          // bnxt_re hw_rev_show prints the PCI vendor id
  b.link(dev + "/device", fn);
  b.link("class/infiniband/" + spec.device, dev);
  const std::string p = dev + "/ports/" + std::to_string(spec.port);
  port_attrs(b, p, port);
  for (const auto& [name, v] : bnxt_re_counters(c)) b.value(p + "/hw_counters/" + name, v);
  b.line(p + "/hw_counters/lifespan", "10");
  netdev(b, fn, port);
  b.ethtool(spec.netdev + ".txt", ethtool_stats_text(bnxt_ethtool(port)));
  b.ethtool(spec.netdev + ".info", info_text("bnxt_en", running_fw(port), spec.pci));
  b.ethtool(spec.netdev + ".pause", pause_text(port, 0, 0));
}

// ------------------------------------------------------------------------------------------
// rxe (Soft-RoCE) over virtio_net: drivers/infiniband/sw/rxe (rxe_hw_counters.c, atomic64;
// docs/domain.md#gid-table), as in the fixture generator's rxe host. No PFC, no DCQCN, no PMA.
// ------------------------------------------------------------------------------------------
Pairs rxe_counters(const Counters& c) {
  return {
      {"sent_pkts", c("rdma_tx_packets")},
      {"rcvd_pkts", c("rdma_rx_packets")},
      {"duplicate_request", c("duplicate_requests")},
      {"out_of_seq_request", c("out_of_sequence")},
      {"rcvd_rnr_err", c("rnr_naks_received")},
      {"send_rnr_err", 0},
      {"rcvd_seq_err", c("seq_err_naks")},
      {"ack_deferred", 0},
      {"retry_exceeded_err", c("retry_exceeded")},
      {"retry_rnr_exceeded_err", c("rnr_retry_exceeded")},
      {"completer_retry_err", c("retransmits")},
      {"send_err", 0},
      {"link_downed", c("link_down_events")},
      {"rdma_sends", c("rdma_tx_packets")},
      {"rdma_recvs", c("rdma_rx_packets")},
  };
}

void rxe_port(Builder& b, const PortState& port) {
  const PortSpec& spec = port.spec;
  const Counters c(port);
  const std::string fn = "devices/" + spec.pci_path + "/" + spec.pci;
  b.line(fn + "/vendor", "0x1af4");
  b.line(fn + "/device", "0x1000");
  b.line(fn + "/numa_node", std::to_string(spec.numa_node));
  b.link(fn + "/driver", "bus/pci/drivers/virtio-pci");
  const std::string virtio = fn + "/virtio1";
  b.line(virtio + "/uevent", "DRIVER=virtio_net");
  b.link(virtio + "/driver", "bus/virtio/drivers/virtio_net");
  b.line("bus/virtio/drivers/virtio_net/uevent", "DRIVER=virtio_net");
  // A software device: under devices/virtual, no `device` link; rxe has no get_dev_fw_str, so
  // fw_ver holds only "\n".
  const std::string dev = "devices/virtual/infiniband/" + spec.device;
  const std::string guid = eui64_guid(spec.mac);
  b.line(dev + "/node_type", "1: CA");
  b.line(dev + "/node_guid", guid);
  b.line(dev + "/sys_image_guid", guid);
  b.line(dev + "/fw_ver", "");
  b.line(dev + "/node_desc", spec.node_desc);
  b.link("class/infiniband/" + spec.device, dev);
  const std::string p = dev + "/ports/" + std::to_string(spec.port);
  port_attrs(b, p, port);
  for (const auto& [name, v] : rxe_counters(c)) b.value(p + "/hw_counters/" + name, v);
  b.line(p + "/hw_counters/lifespan", "10");
  netdev(b, virtio, port);
  const std::uint64_t rx = c("eth_rx_packets") + c("rdma_rx_packets");
  const std::uint64_t tx = c("eth_tx_packets") + c("rdma_tx_packets");
  const std::uint64_t rx_bytes = c("eth_rx_bytes") + c("rdma_rx_bytes");
  const std::uint64_t tx_bytes = c("eth_tx_bytes") + c("rdma_tx_bytes");
  b.ethtool(spec.netdev + ".txt", ethtool_stats_text({{"rx_queue_0_packets", rx},
                                                      {"rx_queue_0_bytes", rx_bytes},
                                                      {"rx_queue_0_drops", 0},
                                                      {"rx_queue_0_kicks", rx / 30000},
                                                      {"tx_queue_0_packets", tx},
                                                      {"tx_queue_0_bytes", tx_bytes},
                                                      {"tx_queue_0_kicks", tx / 2},
                                                      {"tx_queue_0_tx_timeouts", 0}}));
  // No .pause: virtio_net has no get_pauseparam (`ethtool -a` fails with EOPNOTSUPP).
  b.ethtool(spec.netdev + ".info", info_text("virtio_net", "", spec.pci));
}

}  // namespace

std::uint64_t printed_value(double total, int width_bits) {
  if (!(total > 0)) return 0;
  const double whole = std::floor(total);
  if (width_bits > 0 && width_bits < 64) {
    const double modulus = std::ldexp(1.0, width_bits);
    return static_cast<std::uint64_t>(std::fmod(whole, modulus));
  }
  return static_cast<std::uint64_t>(whole);
}

namespace {

void render_into(Builder& b, const PortState& port) {
  switch (port.spec.kind) {
    case NicKind::mlx5:
      mlx5_port(b, port);
      break;
    case NicKind::bnxt_re:
      bnxt_port(b, port);
      break;
    case NicKind::rxe:
      rxe_port(b, port);
      break;
  }
}

}  // namespace

TreeImage render_host(const HostModel& host) {
  TreeImage image;
  Builder b(image);
  for (const PortState& port : host.ports) render_into(b, port);
  return image;
}

TreeImage render_port(const PortState& port) {
  TreeImage image;
  Builder b(image);
  render_into(b, port);
  return image;
}

}  // namespace rdmatop::sim
