#include "simulator/host_model.h"

#include <algorithm>

namespace rdmatop::sim {

namespace {

constexpr double kBitsPerByte = 8;
// Kernel (non-RoCE) Ethernet traffic on priority 0, as a share of the line: ssh, monitoring,
// storage control traffic. Small so that RoCE dominates as on a real RDMA fabric.
constexpr double kEthernetShare = 0.01;
constexpr double kEthernetFrameBytes = 800;
// A PFC frame pauses for at most 65535 quanta of 512 bit times; a NIC holding XOFF refreshes
// before expiry, here at half the maximum (docs/domain.md#pause-occupancy: ~1e3-1e4 frames/s
// at 100G).
constexpr double kPauseQuantaBits = 65535.0 * 512.0;
// Average length of one XOFF episode under light congestion, for XOFF->XON transitions.
constexpr double kPauseEpisodeS = 100e-6;
// The DCQCN notification point sends at most one CNP per flow per 50 µs (Zhu et al. 2015,
// docs/domain.md#dcqcn): a CNP per CE mark up to that limit, for this many active flows.
constexpr double kActiveFlows = 16;
constexpr double kCnpIntervalS = 50e-6;
// RDMA WRITE messages of 64 KiB and READ of 16 KiB dominate the simulated application mix.
constexpr double kWriteMessageBytes = 65536;
constexpr double kReadShare = 0.1;

void add(PortState& p, const char* counter, double delta) {
  if (delta > 0) p.counters[counter] += delta;
}

// The PSID of the simulated ConnectX-6 Dx (sysfs board_id, devlink fw.psid).
constexpr const char* kMlx5Psid = "MT_0000000012";

}  // namespace

std::vector<PortSpec> default_host() {
  std::vector<PortSpec> ports;
  // ConnectX-6 Dx, PCI 15b3:101d, firmware 22.x (docs/domain.md#simulator-models): one ib device
  // per port.
  ports.push_back(PortSpec{NicKind::mlx5, "mlx5_0", 1, "ens1f0np0", "0000:3b:00.0",
                           "pci0000:3a/0000:3a:00.0", "b8:59:9f:a1:b2:c4", "192.168.100.1", 2, 100,
                           "22.39.1002", "rdmatop-demo mlx5_0", kMlx5Psid, "MT2210X01234", 0});
  ports.push_back(PortSpec{NicKind::mlx5, "mlx5_1", 1, "ens1f1np1", "0000:3b:00.1",
                           "pci0000:3a/0000:3a:00.0", "b8:59:9f:a1:b2:c5", "192.168.101.1", 3, 100,
                           "22.39.1002", "rdmatop-demo mlx5_1", kMlx5Psid, "MT2210X01234", 0});
  // Broadcom BCM57508 (P5), bnxt_en + bnxt_re, in a slot of the second socket (NUMA node 1).
  ports.push_back(PortSpec{NicKind::bnxt_re, "bnxt_re0", 1, "ens2f0np0", "0000:41:00.0",
                           "pci0000:40/0000:40:01.1", "00:0a:f7:b1:23:40", "10.20.0.12", 4, 100,
                           "227.0.131.0", "rdmatop-demo bnxt_re0", "", "P210P2A0512", 1});
  return ports;
}

const std::vector<PortSpec>& extra_nics() {
  static const std::vector<PortSpec> nics = {
      // A second ConnectX-6 Dx card (same board, so the same PSID), first function only, on the
      // second socket.
      PortSpec{NicKind::mlx5, "mlx5_2", 1, "ens3f0np0", "0000:5e:00.0", "pci0000:5d/0000:5d:00.0",
               "b8:59:9f:c3:d4:e6", "192.168.102.1", 5, 100, "22.39.1002", "rdmatop-demo mlx5_2",
               kMlx5Psid, "MT2301X05678", 1},
      // Soft-RoCE bound to a virtio_net interface: a virtual ib device, no PCI function of its
      // own, no firmware, no devlink (drivers/infiniband/sw/rxe).
      PortSpec{NicKind::rxe, "rxe0", 1, "eth1", "0000:00:04.0", "pci0000:00", "52:54:00:12:34:57",
               "10.11.12.1", 6, 10, "", "rxe", "", ""},
  };
  return nics;
}

const PortSpec* find_extra_nic(const std::string& device) {
  for (const PortSpec& spec : extra_nics()) {
    if (spec.device == device) return &spec;
  }
  return nullptr;
}

std::vector<PortSpec> scenario_host(const Scenario& scenario) {
  std::vector<PortSpec> ports = default_host();
  for (const std::string& name : scenario.nics) {
    if (const PortSpec* spec = find_extra_nic(name)) ports.push_back(*spec);
  }
  return ports;
}

HostModel make_host_model(std::vector<PortSpec> specs) {
  HostModel host;
  for (PortSpec& spec : specs) {
    PortState state;
    state.spec = std::move(spec);
    for (const std::string& name : model_counter_names()) state.counters[name] = 0;
    host.ports.push_back(std::move(state));
  }
  return host;
}

void set_conditions(HostModel& host, const std::vector<PortConditions>& conditions) {
  for (std::size_t i = 0; i < host.ports.size() && i < conditions.size(); ++i) {
    PortState& p = host.ports[i];
    const bool was_up = p.conditions.link_up;
    const bool up = conditions[i].link_up;
    // Every carrier loss and every regain counts in carrier_changes (net-sysfs.c); the PHY
    // counts the loss (mlx5 link_down_events_phy, bnxt link_down_events).
    if (was_up && !up) {
      add(p, "link_down_events", 1);
      add(p, "carrier_changes", 1);
    } else if (!was_up && up) {
      add(p, "carrier_changes", 1);
    }
    p.conditions = conditions[i];
  }
}

std::uint32_t roce_mtu(std::uint32_t netdev_mtu) {
  constexpr std::uint32_t kOverhead = 96;
  std::uint32_t best = 256;
  for (const std::uint32_t m : {256u, 512u, 1024u, 2048u, 4096u}) {
    if (m + kOverhead <= netdev_mtu) best = m;
  }
  return best;
}

double roce_frame_bytes(std::uint32_t netdev_mtu) {
  return static_cast<double>(roce_mtu(netdev_mtu)) + 14 + 20 + 8 + 12 + 4 + 4;
}

void advance(HostModel& host, double dt_s) {
  if (dt_s <= 0) return;
  host.elapsed_s += dt_s;
  for (PortState& p : host.ports) {
    const PortConditions& c = p.conditions;
    if (!c.link_up) continue;  // no carrier: nothing moves, not even the PHY bit counter
    const double line_bytes = p.spec.gbps * 1e9 / kBitsPerByte * dt_s;
    const double frame = roce_frame_bytes(c.mtu);

    // Pause: we cannot send while paused (rx_pause); the peer cannot send to us while we
    // pause it (tx_pause). Without PFC on the RoCE priority nothing is paused.
    const double rx_pause = c.pfc ? c.rx_pause : 0;
    const double tx_pause = c.pfc ? c.tx_pause : 0;
    const double tx_bytes = c.load * (1 - rx_pause) * line_bytes;
    const double rx_bytes = c.load * c.rx_delivery * (1 - tx_pause) * line_bytes;
    const double tx_pkts = tx_bytes / frame;
    const double rx_pkts = rx_bytes / frame;
    add(p, "rdma_tx_bytes", tx_bytes);
    add(p, "rdma_rx_bytes", rx_bytes);
    add(p, "rdma_tx_packets", tx_pkts);
    add(p, "rdma_rx_packets", rx_pkts);
    add(p, "rx_write_requests", rx_bytes * (1 - kReadShare) / kWriteMessageBytes);
    add(p, "rx_read_requests", rx_bytes * kReadShare / kWriteMessageBytes);
    const double eth_bytes = kEthernetShare * line_bytes;
    add(p, "eth_tx_bytes", eth_bytes);
    add(p, "eth_rx_bytes", eth_bytes);
    add(p, "eth_tx_packets", eth_bytes / kEthernetFrameBytes);
    add(p, "eth_rx_packets", eth_bytes / kEthernetFrameBytes);

    const double refresh_s = kPauseQuantaBits / (p.spec.gbps * 1e9) / 2;
    // With 802.3x pause on, the port's pause is link-level: it stops every priority and is
    // counted by the global pause counters instead of the RoCE priority's PFC counters.
    const bool link = c.global_pause;
    add(p, link ? "tx_global_pause_us" : "tx_pause_us", tx_pause * dt_s * 1e6);
    add(p, link ? "rx_global_pause_us" : "rx_pause_us", rx_pause * dt_s * 1e6);
    add(p, link ? "tx_global_pause_frames" : "tx_pause_frames", tx_pause * dt_s / refresh_s);
    add(p, link ? "rx_global_pause_frames" : "rx_pause_frames", rx_pause * dt_s / refresh_s);
    if (c.pause_lifts && !c.global_pause) {
      add(p, "tx_pause_transitions", tx_pause * dt_s / kPauseEpisodeS);
      add(p, "rx_pause_transitions", rx_pause * dt_s / kPauseEpisodeS);
    }
    add(p, "storm_warnings", c.storm_warnings_per_min * dt_s / 60);
    add(p, "storm_errors", c.storm_errors_per_min * dt_s / 60);

    // DCQCN: we are the notification point for what we receive and the reaction point for
    // what we send (the peers mark our traffic at the same rate).
    const double cnp_limit = kActiveFlows * dt_s / kCnpIntervalS;
    const double marks = rx_pkts * c.ecn_marked;
    add(p, "ecn_marked", marks);
    if (c.np_enabled) add(p, "cnp_sent", std::min(marks, cnp_limit));
    const double cnps_in = std::min(tx_pkts * c.ecn_marked, cnp_limit);
    add(p, "cnp_handled", cnps_in * (1 - c.rp_ignored));
    add(p, "cnp_ignored", cnps_in * c.rp_ignored);

    // Transport: loss shows as PSN gaps at the responder, sequence NAKs at the requester,
    // duplicates after go-back-N retransmission, and some tail loss as ACK timeouts.
    add(p, "out_of_sequence", rx_pkts * c.loss);
    // rxe counts one completer retry per loss it recovers from (NAK or timeout, rxe_comp.c).
    add(p, "retransmits", tx_pkts * c.loss);
    add(p, "seq_err_naks", tx_pkts * c.loss);
    add(p, "duplicate_requests", rx_pkts * c.loss * 0.3);
    add(p, "implied_naks", tx_pkts * c.loss * 0.1);
    add(p, "ack_timeouts", tx_pkts * c.loss * 0.05 + c.ack_timeouts_per_s * dt_s);
    add(p, "retry_exceeded", c.retry_exceeded_per_min * dt_s / 60);
    add(p, "rnr_retry_exceeded", c.rnr_retry_exceeded_per_min * dt_s / 60);
    add(p, "rnr_naks_received", c.rnr_naks_received_per_s * dt_s);
    add(p, "out_of_buffer", c.out_of_buffer_per_s * dt_s);
    add(p, "lossless_drops", c.lossless_drops_per_s * dt_s);

    // Physical layer: the PHY counts every received bit (idle included) at line rate.
    const double bits = p.spec.gbps * 1e9 * dt_s;
    add(p, "rx_bits", bits);
    add(p, "fec_corrected_bits", bits * c.pre_fec_ber);
    add(p, "fec_lane0_corrected_bits", bits * c.pre_fec_ber * c.fec_lane_skew);
    add(p, "symbol_errors", c.symbol_errors_per_s * dt_s);
    add(p, "crc_errors", c.crc_errors_per_s * dt_s);
    add(p, "oversize_frames", c.oversize_frames_per_s * dt_s);
    add(p, "pcie_signal_errors", c.pcie_errors_per_s * dt_s);
    add(p, "pcie_stalled_rd_s", c.pcie_stalled * dt_s);
    add(p, "pma_rcv_errors", c.pma_rcv_errors_per_s * dt_s);
    add(p, "pma_xmit_discards", c.pma_xmit_discards_per_s * dt_s);
    add(p, "pma_xmit_wait", c.pma_xmit_wait_per_s * dt_s);
    add(p, "pma_link_recoveries", c.pma_link_recoveries_per_min * dt_s / 60);
    add(p, "pma_integrity_errors", c.pma_integrity_errors_per_min * dt_s / 60);

    // devlink health (net/devlink/health.c): every report counts an error; a successful
    // recovery counts a recover and puts the reporter back to healthy.
    add(p, "fw_errors", c.fw_errors_per_min * dt_s / 60);
    add(p, "fw_fatal_errors", c.fw_fatal_errors_per_min * dt_s / 60);
    if (c.health_recovers) {
      add(p, "fw_recovers", c.fw_errors_per_min * dt_s / 60);
      add(p, "fw_fatal_recovers", c.fw_fatal_errors_per_min * dt_s / 60);
    }
  }
}

std::string running_fw(const PortState& port) {
  return port.conditions.fw_running.empty() ? port.spec.fw : port.conditions.fw_running;
}

std::string stored_fw(const PortState& port) {
  return port.conditions.fw_stored.empty() ? running_fw(port) : port.conditions.fw_stored;
}

void reload_driver(HostModel& host, const std::string& device) {
  for (PortState& p : host.ports) {
    if (p.spec.device != device) continue;
    for (auto& [name, value] : p.counters) value = 0;
    ++p.reloads;
  }
}

}  // namespace rdmatop::sim
