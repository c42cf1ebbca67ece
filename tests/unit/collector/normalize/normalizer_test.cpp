#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "collector/model/counter_map.h"
#include "collector/normalize/normalizer.h"

using rdmatop::CounterMap;
using rdmatop::CounterNames;
using rdmatop::DeviceSample;
using rdmatop::DriverInfo;
using rdmatop::GidEntry;
using rdmatop::Labels;
using rdmatop::NetdevSample;
using rdmatop::normalize;
using rdmatop::PortSample;
using rdmatop::Series;
using rdmatop::SeriesKind;
using rdmatop::Snapshot;

namespace {

constexpr double k2p32 = 4294967296.0;

/// normalize() output indexed by series_key, checked for order and uniqueness on the way.
class Normalized {
 public:
  explicit Normalized(const Snapshot& snap) : series_(normalize(snap)) {
    for (std::size_t i = 0; i < series_.size(); ++i) {
      const std::string key = rdmatop::series_key(series_[i].name, series_[i].labels);
      if (i > 0) {
        INFO("order at " << key);
        CHECK(rdmatop::series_key(series_[i - 1].name, series_[i - 1].labels) < key);
      }
      by_key_.emplace(key, &series_[i]);
    }
  }

  /// The series with exactly these labels (given in any order), or nullptr.
  const Series* find(const std::string& name, Labels labels) const {
    std::sort(labels.begin(), labels.end());
    const auto it = by_key_.find(rdmatop::series_key(name, labels));
    return it == by_key_.end() ? nullptr : it->second;
  }

  /// How many series carry this name (any labels).
  std::size_t count(const std::string& name) const {
    return static_cast<std::size_t>(std::count_if(series_.begin(), series_.end(),
                                                  [&](const Series& s) { return s.name == name; }));
  }

  const std::vector<Series>& all() const { return series_; }

 private:
  std::vector<Series> series_;
  std::map<std::string, const Series*> by_key_;
};

Labels port_labels(const std::string& device, const std::string& netdev, Labels extra = {}) {
  Labels labels{{"device", device}, {"port", "1"}};
  if (!netdev.empty()) labels.emplace_back("netdev", netdev);
  labels.insert(labels.end(), extra.begin(), extra.end());
  return labels;
}

NetdevSample netdev_named(std::string name, std::string driver) {
  NetdevSample n;
  n.name = std::move(name);
  n.driver = DriverInfo{std::move(driver), "", "", ""};
  return n;
}

// ------------------------------------------------------------------------------------------
// mlx5: ConnectX RoCE port with PMA counters, hw_counters and mlx5e ethtool strings.
// ------------------------------------------------------------------------------------------
Snapshot mlx5_snapshot() {
  PortSample port;
  port.port = 1;
  port.state_id = 4;
  port.state = "ACTIVE";
  port.phys_state_id = 5;
  port.phys_state = "LinkUp";
  port.rate_gbps = 100;
  port.link_layer = "Ethernet";
  port.netdev = "ens1f0np0";
  port.hw_counters_lifespan_ms = 12;
  port.gid_table_read = true;
  port.gids = {
      {0, "fe80:0000:0000:0000:ba59:9fff:fea1:b2c4", "IB/RoCE v1", "ens1f0np0"},
      {1, "fe80:0000:0000:0000:ba59:9fff:fea1:b2c4", "RoCE v2", "ens1f0np0"},
      {2, "0000:0000:0000:0000:0000:ffff:c0a8:6401", "IB/RoCE v1", "ens1f0np0"},
      {3, "0000:0000:0000:0000:0000:ffff:c0a8:6401", "RoCE v2", "ens1f0np0"},
      {4, "2001:0db8:0000:0000:0000:0000:0000:0001", "RoCE v2", "ens1f0np0"},
  };
  port.counters = {
      {"port_rcv_data", 1000},  // x4 -> 4000 bytes
      {"port_xmit_data", 250},
      {"port_rcv_packets", 7},
      // port_xmit_packets absent: the vport ethtool sum must take over
      {"link_downed", 9},  // PMA: must lose to link_down_events_phy
      {"symbol_error", 6},
  };
  port.hw_counters = {
      {"np_cnp_sent", 11},
      {"np_ecn_marked_roce_packets", 20},
      {"rp_cnp_handled", 5},
      {"rp_cnp_ignored", 3},
      {"local_ack_timeout_err", 4294967290},
      {"out_of_buffer", 2},
      {"req_cqe_flush_error", 1},
      {"resp_cqe_flush_error", 0},
      {"rnr_nak_retry_err", 13},
      {"req_rnr_retries_exceeded", 99},  // second alternative: must lose
                                         // packet_seq_err absent: no rdma_seq_err_naks_total series
  };
  NetdevSample netdev = netdev_named("ens1f0np0", "mlx5_core");
  netdev.mtu = 4200;
  netdev.operstate = "up";
  netdev.carrier_changes = 2;
  netdev.ethtool = {
      {"rx_vport_rdma_unicast_bytes", 999},  // loses to PMA port_rcv_data
      {"rx_vport_rdma_multicast_bytes", 1},
      {"tx_vport_rdma_unicast_packets", 30},
      {"tx_vport_rdma_multicast_packets", 2},
      {"rx_prio0_bytes", 1234},
      {"tx_prio0_bytes", 4321},
      {"rx_prio3_pause", 100},
      {"rx_prio3_pause_duration", 2500000},  // µs -> 2.5 s
      {"tx_prio3_pause", 7},
      {"tx_prio3_pause_duration", 1500},  // µs -> 0.0015 s
      {"rx_prio3_pause_transition", 9},
      {"tx_pause_storm_error_events", 1},
      {"link_down_events_phy", 3},
      {"rx_out_of_buffer", 5},
      {"rx_discards_phy", 0},
      {"module_unplug", 1},
      {"rx_prio3_marked", 44},
      {"outbound_pci_stalled_wr_events", 8},
  };
  DeviceSample dev;
  dev.name = "mlx5_0";
  dev.driver = "mlx5";
  dev.ports = {port};
  Snapshot snap;
  snap.devices = {dev};
  snap.netdevs = {netdev};
  return snap;
}

}  // namespace

TEST_CASE("mlx5: PMA data x4, first-present, sums, {p} expansion, µs to s", "[normalize]") {
  const Normalized r(mlx5_snapshot());
  const std::string dev = "mlx5_0";
  const std::string nd = "ens1f0np0";

  const Series* rx_bytes = r.find("rdma_bytes_total", port_labels(dev, nd, {{"direction", "rx"}}));
  REQUIRE(rx_bytes != nullptr);
  CHECK(rx_bytes->value == 4000);  // PMA wins over the vport counters (first present)
  CHECK(rx_bytes->origin == "counters/port_rcv_data");
  CHECK(rx_bytes->kind == SeriesKind::counter);
  CHECK(rx_bytes->wrap_modulus == 0);  // PMA counters saturate or are 64-bit
  const Series* tx_bytes = r.find("rdma_bytes_total", port_labels(dev, nd, {{"direction", "tx"}}));
  REQUIRE(tx_bytes != nullptr);
  CHECK(tx_bytes->value == 1000);

  const Series* tx_packets =
      r.find("rdma_packets_total", port_labels(dev, nd, {{"direction", "tx"}}));
  REQUIRE(tx_packets != nullptr);
  CHECK(tx_packets->value == 32);  // unicast 30 + multicast 2
  CHECK(tx_packets->origin ==
        "ethtool/tx_vport_rdma_unicast_packets+ethtool/tx_vport_rdma_multicast_packets");

  const Series* paused_rx = r.find("rdma_pfc_pause_seconds_total",
                                   port_labels(dev, nd, {{"direction", "rx"}, {"priority", "3"}}));
  REQUIRE(paused_rx != nullptr);
  CHECK(paused_rx->value == Approx(2.5));
  CHECK(paused_rx->origin == "ethtool/rx_prio3_pause_duration");
  const Series* paused_tx = r.find("rdma_pfc_pause_seconds_total",
                                   port_labels(dev, nd, {{"direction", "tx"}, {"priority", "3"}}));
  REQUIRE(paused_tx != nullptr);
  CHECK(paused_tx->value == Approx(0.0015));
  const Series* frames = r.find("rdma_pfc_pause_frames_total",
                                port_labels(dev, nd, {{"direction", "rx"}, {"priority", "3"}}));
  REQUIRE(frames != nullptr);
  CHECK(frames->value == 100);
  const Series* transitions =
      r.find("rdma_pfc_pause_transitions_total",
             port_labels(dev, nd, {{"direction", "rx"}, {"priority", "3"}}));
  REQUIRE(transitions != nullptr);
  CHECK(transitions->value == 9);
  // Only priority 3 has PFC strings: the other priorities are absent, not 0.
  CHECK(r.count("rdma_pfc_pause_frames_total") == 2);
  CHECK(r.find("rdma_pfc_pause_frames_total",
               port_labels(dev, nd, {{"direction", "rx"}, {"priority", "2"}})) == nullptr);
  CHECK(r.count("rdma_pfc_pause_transitions_total") == 1);
  CHECK(r.count("rdma_priority_bytes_total") == 2);  // rx/tx prio0 only
  const Series* marked =
      r.find("rdma_priority_ecn_marked_packets_total", port_labels(dev, nd, {{"priority", "3"}}));
  REQUIRE(marked != nullptr);
  CHECK(marked->value == 44);
}

TEST_CASE("mlx5: ECN/CNP, transport and drops", "[normalize]") {
  const Normalized r(mlx5_snapshot());
  const Labels base = port_labels("mlx5_0", "ens1f0np0");

  const Series* received = r.find("rdma_cnp_received_total", base);
  REQUIRE(received != nullptr);
  CHECK(received->value == 8);  // rp_cnp_handled 5 + rp_cnp_ignored 3
  CHECK(received->origin == "hw_counters/rp_cnp_handled+hw_counters/rp_cnp_ignored");
  REQUIRE(r.find("rdma_cnp_sent_total", base) != nullptr);
  CHECK(r.find("rdma_cnp_sent_total", base)->value == 11);
  CHECK(r.find("rdma_cnp_handled_total", base)->value == 5);
  CHECK(r.find("rdma_cnp_ignored_total", base)->value == 3);
  CHECK(r.find("rdma_ecn_marked_packets_total", base)->value == 20);

  // 32-bit Q-counter: the modulus travels with the series.
  const Series* timeouts = r.find("rdma_ack_timeouts_total", base);
  REQUIRE(timeouts != nullptr);
  CHECK(timeouts->value == 4294967290.0);
  CHECK(timeouts->wrap_modulus == k2p32);
  CHECK(r.find("rdma_cnp_sent_total", base)->wrap_modulus == 0);  // 64-bit

  // Absent raw counter -> no series at all.
  CHECK(r.count("rdma_seq_err_naks_total") == 0);
  CHECK(r.count("rdma_implied_naks_total") == 0);

  // rnr_nak_retry_err counts retried RNR NAKs; the retry-exceeded error is its own counter.
  const Series* rnr_naks = r.find("rdma_rnr_naks_received_total", base);
  REQUIRE(rnr_naks != nullptr);
  CHECK(rnr_naks->value == 13);
  CHECK(rnr_naks->origin == "hw_counters/rnr_nak_retry_err");
  const Series* rnr = r.find("rdma_rnr_retry_exceeded_total", base);
  REQUIRE(rnr != nullptr);
  CHECK(rnr->value == 99);
  CHECK(rnr->origin == "hw_counters/req_rnr_retries_exceeded");

  const Series* flush_req = r.find("rdma_cqe_flush_errors_total",
                                   port_labels("mlx5_0", "ens1f0np0", {{"side", "requester"}}));
  const Series* flush_resp = r.find("rdma_cqe_flush_errors_total",
                                    port_labels("mlx5_0", "ens1f0np0", {{"side", "responder"}}));
  REQUIRE(flush_req != nullptr);
  REQUIRE(flush_resp != nullptr);
  CHECK(flush_req->value == 1);
  CHECK(flush_resp->value == 0);  // present and zero is a series with 0

  // RDMA and Ethernet out-of-buffer are different counters.
  CHECK(r.find("rdma_out_of_buffer_total", base)->value == 2);
  const Series* eth_oob = r.find("rdma_eth_out_of_buffer_total", base);
  REQUIRE(eth_oob != nullptr);
  CHECK(eth_oob->value == 5);
  CHECK(eth_oob->wrap_modulus == k2p32);
  CHECK(eth_oob->origin == "ethtool/rx_out_of_buffer");

  const Series* storm_error = r.find("rdma_pause_storm_events_total",
                                     port_labels("mlx5_0", "ens1f0np0", {{"level", "error"}}));
  REQUIRE(storm_error != nullptr);
  CHECK(storm_error->value == 1);
  CHECK(r.count("rdma_pause_storm_events_total") == 1);  // no warning counter present

  const Series* link_down = r.find("rdma_link_down_events_total", base);
  REQUIRE(link_down != nullptr);
  CHECK(link_down->value == 3);  // ethtool link_down_events_phy wins over PMA link_downed
  CHECK(link_down->wrap_modulus == k2p32);
  CHECK(r.find("rdma_symbol_errors_total", base)->origin == "counters/symbol_error");
  CHECK(
      r.find("rdma_module_events_total", port_labels("mlx5_0", "ens1f0np0", {{"event", "unplug"}}))
          ->value == 1);
  CHECK(r.find("rdma_pcie_stall_events_total",
               port_labels("mlx5_0", "ens1f0np0", {{"direction", "write"}}))
            ->value == 8);
  CHECK(
      r.find("rdma_port_discards_total", port_labels("mlx5_0", "ens1f0np0", {{"direction", "rx"}}))
          ->value == 0);
  CHECK(r.count("rdma_port_discards_total") == 1);
}

TEST_CASE("mlx5: gauges from the snapshot", "[normalize]") {
  const Normalized r(mlx5_snapshot());
  const Labels base = port_labels("mlx5_0", "ens1f0np0");
  struct Expect {
    const char* name;
    double value;
  };
  const Expect expected[] = {
      {"rdma_port_state", 4},
      {"rdma_port_phys_state", 5},
      {"rdma_port_rate_bytes_per_second", 12.5e9},
      {"rdma_netdev_mtu_bytes", 4200},
      {"rdma_netdev_up", 1},
      {"rdma_port_roce_v2_gids", 2},  // IPv4-mapped and global; link-local does not count
      {"rdma_port_roce_v1_gids", 1},
      {"rdma_hw_counters_lifespan_seconds", 0.012},
  };
  for (const Expect& e : expected) {
    INFO(e.name);
    const Series* s = r.find(e.name, base);
    REQUIRE(s != nullptr);
    CHECK(s->kind == SeriesKind::gauge);
    CHECK(s->value == Approx(e.value));
    CHECK(s->wrap_modulus == 0);
  }
  const Series* carrier = r.find("rdma_netdev_carrier_changes_total", base);
  REQUIRE(carrier != nullptr);
  CHECK(carrier->kind == SeriesKind::counter);
  CHECK(carrier->value == 2);

  // PFC-enabled is inferred from which rx_prio{p}_pause strings exist: only priority 3.
  CHECK(r.count("rdma_pfc_enabled") == 8);
  for (int p = 0; p < 8; ++p) {
    INFO("priority " << p);
    const Series* s = r.find("rdma_pfc_enabled",
                             port_labels("mlx5_0", "ens1f0np0", {{"priority", std::to_string(p)}}));
    REQUIRE(s != nullptr);
    CHECK(s->value == (p == 3 ? 1 : 0));
  }
}

TEST_CASE("mlx5: PFC-enabled is not inferred without the per-priority traffic strings",
          "[normalize]") {
  Snapshot snap = mlx5_snapshot();
  snap.netdevs[0].ethtool.erase("rx_prio0_bytes");
  const Normalized r(snap);
  CHECK(r.count("rdma_pfc_enabled") == 0);
  CHECK(r.count("rdma_pfc_pause_frames_total") == 2);  // the counters themselves still map
}

TEST_CASE("mlx5: the old kernels' storm string with a trailing space still maps", "[normalize]") {
  Snapshot snap = mlx5_snapshot();
  snap.netdevs[0].ethtool["tx_pause_storm_warning_events "] = 6;
  const Normalized r(snap);
  const Series* warning = r.find("rdma_pause_storm_events_total",
                                 port_labels("mlx5_0", "ens1f0np0", {{"level", "warning"}}));
  REQUIRE(warning != nullptr);
  CHECK(warning->value == 6);
  CHECK(warning->origin == "ethtool/tx_pause_storm_warning_events ");
}

TEST_CASE("mlx5: device-scope hw_counters (switchdev) go to the first port only", "[normalize]") {
  Snapshot snap = mlx5_snapshot();
  DeviceSample& dev = snap.devices[0];
  dev.hw_counters = {
      {"np_cnp_sent", 50}, {"packet_seq_err", 4}, {"rp_cnp_handled", 1}, {"rp_cnp_ignored", 1}};
  PortSample second;
  second.port = 2;
  second.netdev = "pf0vf0";
  dev.ports.push_back(second);

  const Normalized r(snap);
  const Labels p1 = port_labels("mlx5_0", "ens1f0np0");
  // The port's own counter wins over the device-scope one.
  CHECK(r.find("rdma_cnp_sent_total", p1)->value == 11);
  CHECK(r.find("rdma_cnp_received_total", p1)->value == 8);
  // Missing at port scope: the device-scope value fills in, with its origin.
  const Series* seq = r.find("rdma_seq_err_naks_total", p1);
  REQUIRE(seq != nullptr);
  CHECK(seq->value == 4);
  CHECK(seq->origin == "device_hw_counters/packet_seq_err");
  CHECK(seq->wrap_modulus == k2p32);
  // Port 2 gets nothing from the device scope.
  const Labels p2{{"device", "mlx5_0"}, {"port", "2"}, {"netdev", "pf0vf0"}};
  CHECK(r.find("rdma_cnp_sent_total", p2) == nullptr);
  CHECK(r.find("rdma_seq_err_naks_total", p2) == nullptr);
  CHECK(r.count("rdma_seq_err_naks_total") == 1);
}

TEST_CASE("mlx5: a sum with a missing term falls through to the next alternative", "[normalize]") {
  Snapshot snap = mlx5_snapshot();
  PortSample& port = snap.devices[0].ports[0];
  port.hw_counters.erase("rp_cnp_ignored");
  port.hw_counters["cc_rx_cnp_pkts"] = 77;
  const Normalized r(snap);
  const Series* received = r.find("rdma_cnp_received_total", port_labels("mlx5_0", "ens1f0np0"));
  REQUIRE(received != nullptr);
  CHECK(received->value == 77);  // not the partial sum 5
  CHECK(received->origin == "hw_counters/cc_rx_cnp_pkts");

  port.hw_counters.erase("cc_rx_cnp_pkts");
  CHECK(Normalized(snap).count("rdma_cnp_received_total") == 0);
}

// ------------------------------------------------------------------------------------------
// bnxt_re + bnxt_en
// ------------------------------------------------------------------------------------------
TEST_CASE("bnxt_re: hw_counters and bnxt_en ethtool names", "[normalize]") {
  PortSample port;
  port.port = 1;
  port.netdev = "ens2f0np0";
  port.link_layer = "Ethernet";
  port.hw_counters = {
      {"rx_bytes", 100},
      {"tx_bytes", 200},
      {"rx_pkts", 3},
      {"tx_pkts", 4},
      {"rx_ecn_marked_pkts", 9},
      {"tx_cnp_pkts", 4},
      {"rx_cnp_pkts", 6},
      {"to_retransmits", 1},
      {"rx_out_of_buffer", 0},
      {"seq_err_naks_rcvd", 2},
      {"oos_drop_count", 5},
      {"dup_req", 1},
      {"max_retry_exceeded", 0},
      {"rnr_naks_rcvd", 3},
  };
  NetdevSample netdev = netdev_named("ens2f0np0", "bnxt_en");
  netdev.ethtool = {
      {"rx_bytes", 999999},  // Ethernet port bytes: must not become rdma_bytes_total
      {"rx_pfc_ena_frames_pri3", 10},
      {"pfc_pri3_rx_duration_us", 1000000},
      {"pfc_pri3_tx_transitions", 4},
      {"continuous_roce_pause_events", 2},
      {"rx_bytes_pri3", 77},
      {"link_down_events", 1},
      {"rx_pause_frames", 0},
      {"rx_fec_corrected_blocks", 12},
      {"rx_stat_discard", 5},
      {"rx_prio3_pause", 5},  // an mlx5 name on a bnxt port: ignored
  };
  DeviceSample dev;
  dev.name = "bnxt_re0";
  dev.driver = "bnxt_re";
  dev.ports = {port};
  Snapshot snap;
  snap.devices = {dev};
  snap.netdevs = {netdev};
  const Normalized r(snap);
  const std::string d = "bnxt_re0";
  const std::string nd = "ens2f0np0";
  const Labels base = port_labels(d, nd);

  const Series* rx_bytes = r.find("rdma_bytes_total", port_labels(d, nd, {{"direction", "rx"}}));
  REQUIRE(rx_bytes != nullptr);
  CHECK(rx_bytes->value == 100);
  CHECK(rx_bytes->origin == "hw_counters/rx_bytes");
  CHECK(r.find("rdma_packets_total", port_labels(d, nd, {{"direction", "tx"}}))->value == 4);
  CHECK(r.find("rdma_ecn_marked_packets_total", base)->value == 9);
  CHECK(r.find("rdma_cnp_sent_total", base)->value == 4);
  CHECK(r.find("rdma_cnp_received_total", base)->value == 6);
  CHECK(r.count("rdma_cnp_handled_total") == 0);  // bnxt_re does not split handled/ignored
  CHECK(r.find("rdma_ack_timeouts_total", base)->value == 1);
  CHECK(r.find("rdma_out_of_buffer_total", base)->value == 0);
  CHECK(r.find("rdma_out_of_sequence_total", base)->value == 5);
  CHECK(r.find("rdma_rnr_naks_received_total", base)->value == 3);

  const Series* paused = r.find("rdma_pfc_pause_seconds_total",
                                port_labels(d, nd, {{"direction", "rx"}, {"priority", "3"}}));
  REQUIRE(paused != nullptr);
  CHECK(paused->value == Approx(1.0));
  CHECK(r.find("rdma_pfc_pause_frames_total",
               port_labels(d, nd, {{"direction", "rx"}, {"priority", "3"}}))
            ->value == 10);
  CHECK(r.count("rdma_pfc_pause_frames_total") == 1);  // rx_prio3_pause is not a bnxt name
  CHECK(r.find("rdma_pfc_pause_transitions_total",
               port_labels(d, nd, {{"direction", "tx"}, {"priority", "3"}}))
            ->value == 4);
  const Series* storm =
      r.find("rdma_pause_storm_events_total", port_labels(d, nd, {{"level", "warning"}}));
  REQUIRE(storm != nullptr);
  CHECK(storm->value == 2);
  CHECK(r.find("rdma_priority_bytes_total",
               port_labels(d, nd, {{"direction", "rx"}, {"priority", "3"}}))
            ->value == 77);
  CHECK(r.find("rdma_link_down_events_total", base)->value == 1);
  CHECK(
      r.find("rdma_global_pause_frames_total", port_labels(d, nd, {{"direction", "rx"}}))->value ==
      0);
  CHECK(r.find("rdma_fec_corrected_blocks_total", base)->value == 12);
  CHECK(r.find("rdma_port_discards_total", port_labels(d, nd, {{"direction", "rx"}}))->value == 5);
  CHECK(r.count("rdma_pfc_enabled") == 0);                     // the inference is mlx5-only
  for (const Series& s : r.all()) CHECK(s.wrap_modulus == 0);  // bnxt counters are u64
}

// ------------------------------------------------------------------------------------------
// irdma + ice
// ------------------------------------------------------------------------------------------
TEST_CASE("irdma: IPv4+IPv6 sums, 32-bit CNP counters, names with spaces", "[normalize]") {
  PortSample port;
  port.port = 1;
  port.netdev = "ens3f0";
  port.hw_counters = {
      {"ip4InOctets", 100},
      {"ip6InOctets", 20},
      {"ip4OutOctets", 50},  // ip6OutOctets absent: no tx bytes series
      {"ip4InPkts", 10},
      {"ip6InPkts", 2},
      {"cnpHandled", 4000000000},
      {"cnpIgnored", 5},
      {"cnpSent", 3},
      {"RxECNMrkd", 7},
      {"RNR received", 2},
      {"Nak Sequence Error", 6},
      {"Rcvd Out of order packets", 8},
  };
  NetdevSample netdev = netdev_named("ens3f0", "ice");
  netdev.ethtool = {
      {"rx_priority_3_xoff.nic", 12},
      {"tx_priority_3_xoff.nic", 13},
      {"link_xoff_tx.nic", 1},
      {"rx_crc_errors.nic", 2},
  };
  netdev.statistics = {{"rx_crc_errors", 99}};  // generic fallback loses to the ice name
  DeviceSample dev;
  dev.name = "irdma0";
  dev.driver = "irdma";
  dev.ports = {port};
  Snapshot snap;
  snap.devices = {dev};
  snap.netdevs = {netdev};
  const Normalized r(snap);
  const std::string d = "irdma0";
  const std::string nd = "ens3f0";
  const Labels base = port_labels(d, nd);

  const Series* rx_bytes = r.find("rdma_bytes_total", port_labels(d, nd, {{"direction", "rx"}}));
  REQUIRE(rx_bytes != nullptr);
  CHECK(rx_bytes->value == 120);
  CHECK(rx_bytes->origin == "hw_counters/ip4InOctets+hw_counters/ip6InOctets");
  CHECK(r.find("rdma_bytes_total", port_labels(d, nd, {{"direction", "tx"}})) == nullptr);
  CHECK(r.find("rdma_packets_total", port_labels(d, nd, {{"direction", "rx"}}))->value == 12);

  const Series* received = r.find("rdma_cnp_received_total", base);
  REQUIRE(received != nullptr);
  CHECK(received->value == 4000000005.0);
  CHECK(received->wrap_modulus == k2p32);
  CHECK(r.find("rdma_cnp_handled_total", base)->wrap_modulus == k2p32);
  CHECK(r.find("rdma_cnp_sent_total", base)->value == 3);
  CHECK(r.find("rdma_ecn_marked_packets_total", base)->wrap_modulus == 0);

  const Series* rnr = r.find("rdma_rnr_naks_received_total", base);
  REQUIRE(rnr != nullptr);
  CHECK(rnr->value == 2);
  CHECK(rnr->origin == "hw_counters/RNR received");
  CHECK(r.find("rdma_seq_err_naks_total", base)->value == 6);
  CHECK(r.find("rdma_out_of_sequence_total", base)->value == 8);

  CHECK(r.find("rdma_pfc_pause_frames_total",
               port_labels(d, nd, {{"direction", "rx"}, {"priority", "3"}}))
            ->value == 12);
  CHECK(r.find("rdma_pfc_pause_frames_total",
               port_labels(d, nd, {{"direction", "tx"}, {"priority", "3"}}))
            ->value == 13);
  CHECK(
      r.find("rdma_global_pause_frames_total", port_labels(d, nd, {{"direction", "tx"}}))->value ==
      1);
  const Series* crc = r.find("rdma_crc_errors_total", base);
  REQUIRE(crc != nullptr);
  CHECK(crc->value == 2);
  CHECK(crc->origin == "ethtool/rx_crc_errors.nic");
}

// ------------------------------------------------------------------------------------------
// rxe (Soft-RoCE) on a virtio netdev
// ------------------------------------------------------------------------------------------
Snapshot rxe_snapshot() {
  PortSample port;
  port.port = 1;
  port.state_id = 4;
  port.phys_state_id = 5;
  port.rate_gbps = 2.5;
  port.link_layer = "Ethernet";
  port.netdev = "eth0";
  port.gid_table_read = true;
  port.gids = {
      {0, "fe80:0000:0000:0000:5054:00ff:fe12:3456", "RoCE v2", "eth0"},
      {1, "0000:0000:0000:0000:0000:ffff:0a0b:0c01", "RoCE v2", "eth0"},
  };
  port.hw_counters = {
      {"sent_pkts", 10},          {"rcvd_pkts", 9},          {"duplicate_request", 3},
      {"out_of_seq_request", 1},  {"rcvd_rnr_err", 0},       {"send_rnr_err", 2},
      {"rcvd_seq_err", 0},        {"retry_exceeded_err", 0}, {"retry_rnr_exceeded_err", 0},
      {"completer_retry_err", 2}, {"link_downed", 1},        {"ack_deferred", 5},
  };
  NetdevSample netdev = netdev_named("eth0", "virtio_net");
  netdev.mtu = 1500;
  netdev.operstate = "down";
  netdev.statistics = {{"rx_crc_errors", 0}, {"rx_bytes", 123456}};
  netdev.ethtool = {{"rx_prio3_pause", 5}, {"rx_prio0_bytes", 1}};  // not rxe names: ignored
  DeviceSample dev;
  dev.name = "rxe0";
  dev.driver = "rxe";
  dev.ports = {port};
  Snapshot snap;
  snap.devices = {dev};
  snap.netdevs = {netdev};
  return snap;
}

TEST_CASE("rxe: software counters, no PMA, driver gating of ethtool names", "[normalize]") {
  const Normalized r(rxe_snapshot());
  const std::string d = "rxe0";
  const std::string nd = "eth0";
  const Labels base = port_labels(d, nd);

  CHECK(r.find("rdma_packets_total", port_labels(d, nd, {{"direction", "tx"}}))->value == 10);
  CHECK(r.find("rdma_packets_total", port_labels(d, nd, {{"direction", "rx"}}))->value == 9);
  CHECK(r.count("rdma_bytes_total") == 0);  // sent_bytes/rcvd_bytes only on newer kernels
  CHECK(r.find("rdma_duplicate_requests_total", base)->value == 3);
  CHECK(r.find("rdma_out_of_sequence_total", base)->value == 1);
  CHECK(r.find("rdma_rnr_naks_sent_total", base)->value == 2);
  CHECK(r.find("rdma_retransmits_total", base)->value == 2);
  CHECK(r.find("rdma_seq_err_naks_total", base)->value == 0);
  const Series* link_down = r.find("rdma_link_down_events_total", base);
  REQUIRE(link_down != nullptr);
  CHECK(link_down->origin == "hw_counters/link_downed");
  // The generic netdev statistics row applies to every driver.
  const Series* crc = r.find("rdma_crc_errors_total", base);
  REQUIRE(crc != nullptr);
  CHECK(crc->origin == "statistics/rx_crc_errors");
  // mlx5 ethtool names on a virtio netdev under rxe produce nothing.
  CHECK(r.count("rdma_pfc_pause_frames_total") == 0);
  CHECK(r.count("rdma_priority_bytes_total") == 0);
  CHECK(r.count("rdma_pfc_enabled") == 0);
  // rxe is RoCE v2 only; the link-local entry does not count.
  CHECK(r.find("rdma_port_roce_v2_gids", base)->value == 1);
  CHECK(r.find("rdma_port_roce_v1_gids", base)->value == 0);
  CHECK(r.find("rdma_netdev_up", base)->value == 0);
  CHECK(r.find("rdma_port_rate_bytes_per_second", base)->value == Approx(312.5e6));
  CHECK(r.count("rdma_hw_counters_lifespan_seconds") == 0);  // not read: absent
  CHECK(r.count("rdma_netdev_carrier_changes_total") == 0);
}

TEST_CASE("unknown RDMA driver: the device maps like its netdev's Ethernet driver", "[normalize]") {
  // A renamed device ("rocep59s0f0") or a capture without the driver link: the netdev's
  // mlx5_core (ethtool -i) says the counters are mlx5's, the RDMA ones included.
  Snapshot snap = mlx5_snapshot();
  snap.devices[0].driver = "";
  const Normalized r(snap);
  CHECK(r.count("rdma_pfc_pause_frames_total") == 2);
  CHECK(r.count("rdma_pfc_enabled") == 8);
  REQUIRE(r.find("rdma_cnp_sent_total", port_labels("mlx5_0", "ens1f0np0")) != nullptr);
  CHECK(r.find("rdma_cnp_sent_total", port_labels("mlx5_0", "ens1f0np0"))->value == 11);
  const Series* bytes =
      r.find("rdma_bytes_total", port_labels("mlx5_0", "ens1f0np0", {{"direction", "rx"}}));
  REQUIRE(bytes != nullptr);
  CHECK(bytes->origin == "counters/port_rcv_data");  // as on a device known to be mlx5
  const Series* link_down =
      r.find("rdma_link_down_events_total", port_labels("mlx5_0", "ens1f0np0"));
  REQUIRE(link_down != nullptr);
  CHECK(link_down->value == 3);

  // Neither the device's nor the netdev's driver known: only the family-any rows apply.
  snap.netdevs[0].driver.reset();
  const Normalized unknown(snap);
  CHECK(unknown.count("rdma_cnp_sent_total") == 0);
  CHECK(unknown.count("rdma_pfc_pause_frames_total") == 0);
}

TEST_CASE("netdev label: omitted when the port has none; netdev series need the sample",
          "[normalize]") {
  Snapshot snap = rxe_snapshot();
  snap.devices[0].ports[0].netdev = "";
  Normalized no_netdev(snap);
  for (const Series& s : no_netdev.all()) {
    INFO(s.name);
    CHECK(rdmatop::label_value(s.labels, "netdev").empty());
    CHECK(std::none_of(s.labels.begin(), s.labels.end(),
                       [](const auto& l) { return l.first == "netdev"; }));
  }
  CHECK(no_netdev.count("rdma_netdev_mtu_bytes") == 0);
  CHECK(no_netdev.count("rdma_crc_errors_total") == 0);
  CHECK(no_netdev.find("rdma_packets_total", port_labels("rxe0", "", {{"direction", "tx"}})) !=
        nullptr);

  // Named netdev whose sample was not collected: the label stays, netdev series do not.
  snap = rxe_snapshot();
  snap.netdevs.clear();
  const Normalized missing(snap);
  CHECK(missing.find("rdma_packets_total", port_labels("rxe0", "eth0", {{"direction", "tx"}})) !=
        nullptr);
  CHECK(missing.count("rdma_netdev_up") == 0);
  CHECK(missing.count("rdma_crc_errors_total") == 0);
}

TEST_CASE("every series carries device and port, sorted labels, no NaN", "[normalize]") {
  for (const Snapshot& snap : {mlx5_snapshot(), rxe_snapshot()}) {
    const Normalized r(snap);
    REQUIRE_FALSE(r.all().empty());
    for (const Series& s : r.all()) {
      INFO(s.name);
      CHECK_FALSE(rdmatop::label_value(s.labels, "device").empty());
      CHECK(rdmatop::label_value(s.labels, "port") == "1");
      CHECK(std::is_sorted(s.labels.begin(), s.labels.end()));
      CHECK(std::isfinite(s.value));
      CHECK_FALSE(s.origin.empty());
    }
  }
}

TEST_CASE("odd ports: NaN rate, InfiniBand link layer, empty operstate, no ports", "[normalize]") {
  Snapshot snap = rxe_snapshot();
  PortSample& port = snap.devices[0].ports[0];
  port.rate_gbps = std::numeric_limits<double>::quiet_NaN();
  port.link_layer = "InfiniBand";
  snap.netdevs[0].operstate = "";
  DeviceSample empty;
  empty.name = "mlx5_9";
  empty.driver = "mlx5";
  snap.devices.push_back(empty);
  const Normalized r(snap);
  CHECK(r.count("rdma_port_rate_bytes_per_second") == 0);
  CHECK(r.count("rdma_port_roce_v2_gids") == 0);
  CHECK(r.count("rdma_netdev_up") == 0);
  for (const Series& s : r.all()) CHECK(rdmatop::label_value(s.labels, "device") == "rxe0");

  // A RoCE port with an empty GID table reports 0 routable GIDs (a finding), not nothing.
  snap = rxe_snapshot();
  snap.devices[0].ports[0].gids.clear();
  CHECK(Normalized(snap).find("rdma_port_roce_v2_gids", port_labels("rxe0", "eth0"))->value == 0);
}

TEST_CASE("normalize is deterministic and an empty snapshot gives nothing", "[normalize]") {
  const Snapshot snap = mlx5_snapshot();
  const std::vector<Series> a = normalize(snap);
  const std::vector<Series> b = normalize(snap);
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].name == b[i].name);
    CHECK(a[i].labels == b[i].labels);
    CHECK(a[i].value == b[i].value);
  }
  CHECK(normalize(Snapshot{}).empty());
}

TEST_CASE("rdma_netdev_up: up and unknown (no carrier tracking) are up", "[normalize]") {
  const std::pair<const char*, double> cases[] = {{"up", 1},      {"unknown", 1},
                                                  {"down", 0},    {"lowerlayerdown", 0},
                                                  {"dormant", 0}, {"notpresent", 0}};
  for (const auto& [operstate, expected] : cases) {
    INFO(operstate);
    Snapshot snap = rxe_snapshot();
    snap.netdevs[0].operstate = operstate;
    const Normalized r(snap);
    const Series* up = r.find("rdma_netdev_up", port_labels("rxe0", "eth0"));
    REQUIRE(up != nullptr);
    CHECK(up->value == expected);
  }
}

TEST_CASE("IB PMA error counters: named series, saturating (no wrap modulus)", "[normalize]") {
  Snapshot snap = mlx5_snapshot();
  snap.devices[0].ports[0].counters.insert({{"port_rcv_errors", 65535},
                                            {"port_xmit_discards", 12},
                                            {"port_xmit_wait", 4000000000},
                                            {"link_error_recovery", 255},
                                            {"local_link_integrity_errors", 15},
                                            {"excessive_buffer_overrun_errors", 2},
                                            {"VL15_dropped", 1}});
  const Normalized r(snap);
  const std::pair<const char*, double> cases[] = {{"rdma_port_rcv_errors_total", 65535},
                                                  {"rdma_port_xmit_discards_total", 12},
                                                  {"rdma_port_xmit_wait_total", 4000000000},
                                                  {"rdma_link_error_recovery_total", 255},
                                                  {"rdma_local_link_integrity_errors_total", 15},
                                                  {"rdma_excessive_buffer_overrun_errors_total", 2},
                                                  {"rdma_vl15_dropped_total", 1}};
  for (const auto& [name, value] : cases) {
    INFO(name);
    const Series* s = r.find(name, port_labels("mlx5_0", "ens1f0np0"));
    REQUIRE(s != nullptr);
    CHECK(s->value == value);
    CHECK(s->wrap_modulus == 0);  // legacy PMA counters saturate, they never wrap
    CHECK(s->origin.starts_with("counters/"));
  }
  // Absent raw counters give no series.
  CHECK(r.count("rdma_port_rcv_remote_physical_errors_total") == 0);
}

TEST_CASE("rdma_global_pause_enabled from the pause parameters, per direction", "[normalize]") {
  Snapshot snap = mlx5_snapshot();
  CHECK(Normalized(snap).count("rdma_global_pause_enabled") == 0);  // not read: absent
  snap.netdevs[0].pause = rdmatop::PauseInfo{false, true, std::nullopt, std::nullopt, std::nullopt};
  const Normalized r(snap);
  const Series* rx = r.find("rdma_global_pause_enabled",
                            port_labels("mlx5_0", "ens1f0np0", {{"direction", "rx"}}));
  REQUIRE(rx != nullptr);
  CHECK(rx->value == 1);
  CHECK(rx->kind == SeriesKind::gauge);
  CHECK(r.count("rdma_global_pause_enabled") == 1);  // tx unknown: absent, not 0
}

TEST_CASE("mlx5: per-lane FEC corrected bits expand {l} into a lane label", "[normalize]") {
  Snapshot snap = mlx5_snapshot();
  snap.netdevs[0].ethtool.insert({{"rx_err_lane_0_phy", 10},
                                  {"rx_err_lane_1_phy", 11},
                                  {"rx_err_lane_2_phy", 900},
                                  {"rx_err_lane_3_phy", 13}});
  const Normalized r(snap);
  CHECK(r.count("rdma_fec_lane_corrected_bit_errors_total") == 4);
  const Series* lane2 = r.find("rdma_fec_lane_corrected_bit_errors_total",
                               port_labels("mlx5_0", "ens1f0np0", {{"lane", "2"}}));
  REQUIRE(lane2 != nullptr);
  CHECK(lane2->value == 900);
  CHECK(lane2->origin == "ethtool/rx_err_lane_2_phy");
  // Priority rows are unchanged by the second placeholder.
  CHECK(r.find("rdma_pfc_pause_frames_total",
               port_labels("mlx5_0", "ens1f0np0", {{"direction", "rx"}, {"priority", "3"}})) !=
        nullptr);
}

TEST_CASE("rdma_port_hw_counters: entries of a mapped driver's port, device ones on port 1",
          "[normalize]") {
  Snapshot snap = mlx5_snapshot();
  const std::size_t port_counters = snap.devices[0].ports[0].hw_counters.size();
  snap.devices[0].hw_counters = {{"out_of_sequence", 1}, {"packet_seq_err", 2}};
  const Normalized counted(snap);  // keeps the series the pointer below points into
  const Series* n = counted.find("rdma_port_hw_counters", port_labels("mlx5_0", "ens1f0np0"));
  REQUIRE(n != nullptr);
  CHECK(n->value == static_cast<double>(port_counters + 2));
  // No counters, or a driver the table does not map: no series.
  snap.devices[0].hw_counters.clear();
  snap.devices[0].ports[0].hw_counters.clear();
  CHECK(Normalized(snap).count("rdma_port_hw_counters") == 0);
  Snapshot other = mlx5_snapshot();
  other.devices[0].driver = "siw";
  CHECK(Normalized(other).count("rdma_port_hw_counters") == 0);
}

namespace normalizer_memory_test {

/// Every field, the value by its bits (NaN never reaches a series, but -0 would).
void check_same_series(const std::vector<Series>& got, const std::vector<Series>& want) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("series " << i << ": " << want[i].name);
    CHECK(got[i].name == want[i].name);
    CHECK(got[i].labels == want[i].labels);
    CHECK(got[i].kind == want[i].kind);
    CHECK(std::signbit(got[i].value) == std::signbit(want[i].value));
    CHECK(got[i].value == want[i].value);
    CHECK(got[i].wrap_modulus == want[i].wrap_modulus);
    CHECK(got[i].saturation_value == want[i].saturation_value);
    CHECK(got[i].origin == want[i].origin);
  }
}

Snapshot two_hosts_in_one() {
  Snapshot snap = mlx5_snapshot();
  const Snapshot rxe = rxe_snapshot();
  snap.devices.push_back(rxe.devices.front());
  snap.netdevs.push_back(rxe.netdevs.front());
  return snap;
}

TEST_CASE(
    "Normalizer: each snapshot of a sequence gives what normalize() gives, whether or not "
    "its series are the previous one's",
    "[normalize]") {
  rdmatop::Normalizer normalizer;
  std::vector<Snapshot> sequence;
  Snapshot snap = two_hosts_in_one();
  sequence.push_back(snap);
  // The same series with new values: the remembered order is used.
  snap.devices[0].ports[0].counters["port_rcv_data"] += 5000;
  snap.devices[1].ports[0].hw_counters["sent_pkts"] += 7;
  sequence.push_back(snap);
  // A counter gone: one series fewer.
  snap.devices[1].ports[0].hw_counters.erase("sent_pkts");
  sequence.push_back(snap);
  // A name first in a map: every other name's position moves (the normalizer finds the table's
  // names once per names vector, so it must not read the old positions in the new one).
  snap.devices[0].ports[0].counters["aaa_first"] = 1;
  snap.devices[0].ports[0].counters["port_xmit_data"] += 11;
  sequence.push_back(snap);
  // The same names in another vector, then the old vector again with new values.
  const CounterMap before = snap.devices[0].ports[0].counters;
  snap.devices[0].ports[0].counters =
      CounterMap(std::make_shared<const CounterNames>(*before.names()), before.values());
  snap.devices[0].ports[0].counters["port_xmit_data"] += 13;
  sequence.push_back(snap);
  snap.devices[0].ports[0].counters = before;
  for (auto&& [name, value] : snap.devices[0].ports[0].counters) value += 17;
  sequence.push_back(snap);
  snap.devices[0].ports[0].counters.erase("aaa_first");
  sequence.push_back(snap);
  // As many series as before, but one device renamed: the names and labels are compared, not
  // only counted (and the new name sorts the device's series elsewhere).
  snap.devices[1].name = "aaa_rxe0";
  sequence.push_back(snap);
  // A device listed twice: its duplicate keys are dropped, then the list is whole again.
  snap.devices.push_back(snap.devices[0]);
  sequence.push_back(snap);
  sequence.push_back(two_hosts_in_one());
  sequence.push_back(Snapshot{});
  sequence.push_back(two_hosts_in_one());
  for (std::size_t i = 0; i < sequence.size(); ++i) {
    INFO("snapshot " << i);
    check_same_series(normalizer.normalize(sequence[i]), normalize(sequence[i]));
  }
  const rdmatop::Observation observed = normalizer.observe(sequence.front());
  check_same_series(observed.series, normalize(sequence.front()));
  CHECK(observed.snapshot.devices.size() == sequence.front().devices.size());
}

TEST_CASE(
    "Normalizer: a port's series that come where another port's were last snapshot get their "
    "own labels",
    "[normalize]") {
  // Two ports of one device with the same counters: their table series come from the same
  // groups of the counter table. When the first port reads nothing (no counters, no state),
  // the second port's series take the positions the first port's had; a label remembered by
  // position and group alone would give them the first port's labels.
  Snapshot snap = mlx5_snapshot();
  PortSample second = snap.devices[0].ports[0];
  second.port = 2;
  second.netdev = "ens1f1np1";
  snap.devices[0].ports.push_back(second);
  NetdevSample second_netdev = snap.netdevs[0];
  second_netdev.name = "ens1f1np1";
  snap.netdevs.push_back(second_netdev);

  rdmatop::Normalizer normalizer;
  std::vector<Snapshot> sequence{snap};
  Snapshot emptied = snap;
  PortSample nothing_read;
  nothing_read.port = 1;
  nothing_read.netdev = snap.devices[0].ports[0].netdev;
  emptied.devices[0].ports[0] = nothing_read;
  emptied.netdevs.erase(emptied.netdevs.begin());
  sequence.push_back(emptied);
  sequence.push_back(snap);
  // The second port loses a counter in the middle of the table: its later series move by one
  // within the same port.
  Snapshot fewer = snap;
  fewer.devices[0].ports[1].hw_counters.erase("np_cnp_sent");
  sequence.push_back(fewer);
  sequence.push_back(snap);
  // The ports swap netdevs: the same positions and groups, other labels.
  Snapshot swapped = snap;
  std::swap(swapped.devices[0].ports[0].netdev, swapped.devices[0].ports[1].netdev);
  sequence.push_back(swapped);
  for (std::size_t i = 0; i < sequence.size(); ++i) {
    INFO("snapshot " << i);
    check_same_series(normalizer.normalize(sequence[i]), normalize(sequence[i]));
  }
}

TEST_CASE(
    "Normalizer: a port's series are worked out again when its drivers change, not only its "
    "names",
    "[normalize]") {
  // The same counter maps (the same names vectors) under other drivers: the rows that apply
  // are others, so a cache of what the table makes of a port, keyed by its maps' names alone
  // (as the term slots are), would make the first snapshot's series again.
  const Snapshot snap = mlx5_snapshot();
  Snapshot other_rdma_driver = snap;
  other_rdma_driver.devices[0].driver = "bnxt_re";
  // A device driver the table does not map reads its netdev's rows by the netdev's driver
  // (driver_families): mlx5_core's, then bnxt_en's.
  Snapshot unmapped = snap;
  unmapped.devices[0].driver = "siw";
  Snapshot other_netdev_driver = unmapped;
  other_netdev_driver.netdevs[0].driver = DriverInfo{"bnxt_en", "", "", ""};
  REQUIRE(other_rdma_driver.devices[0].ports[0].hw_counters.names() ==
          snap.devices[0].ports[0].hw_counters.names());
  REQUIRE(other_netdev_driver.netdevs[0].ethtool.names() == snap.netdevs[0].ethtool.names());
  const auto same_series = [](const std::vector<Series>& a, const std::vector<Series>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const Series& x, const Series& y) {
      return x.name == y.name && x.labels == y.labels;
    });
  };
  REQUIRE_FALSE(same_series(normalize(other_rdma_driver), normalize(snap)));
  REQUIRE_FALSE(same_series(normalize(other_netdev_driver), normalize(unmapped)));

  rdmatop::Normalizer normalizer;
  const std::vector<Snapshot> sequence{
      snap, other_rdma_driver, snap, unmapped, other_netdev_driver, unmapped, snap};
  for (std::size_t i = 0; i < sequence.size(); ++i) {
    INFO("snapshot " << i);
    check_same_series(normalizer.normalize(sequence[i]), normalize(sequence[i]));
  }
}

TEST_CASE("Normalizer: a series keeps the labels it had last snapshot; changed ones are new",
          "[normalize]") {
  rdmatop::Normalizer normalizer;
  Snapshot snap = two_hosts_in_one();
  const std::vector<Series> first = normalizer.normalize(snap);
  snap.devices[0].ports[0].counters["port_rcv_data"] += 5000;
  const std::vector<Series> second = normalizer.normalize(snap);
  REQUIRE(second.size() == first.size());
  std::size_t port_series = 0;
  for (std::size_t i = 0; i < first.size(); ++i) {
    INFO(series_key(first[i].name, first[i].labels));
    // Every series of a port is made through the labels draft; host-scope ones need not be.
    if (label_value(first[i].labels, "port").empty()) continue;
    ++port_series;
    CHECK(second[i].labels.shares_with(first[i].labels));
  }
  CHECK(port_series > 50);
  // The second device renamed: its series' labels are new, the first device's still shared.
  snap.devices[1].name = "aaa_rxe0";
  const std::vector<Series> third = normalizer.normalize(snap);
  check_same_series(third, normalize(snap));
  std::size_t renamed = 0;
  for (const Series& s : third) {
    const bool shared = std::any_of(second.begin(), second.end(), [&](const Series& before) {
      return s.labels.shares_with(before.labels);
    });
    if (label_value(s.labels, "device") == "aaa_rxe0") {
      ++renamed;
      CHECK_FALSE(shared);
    } else if (!label_value(s.labels, "port").empty()) {
      CHECK(shared);
    }
  }
  CHECK(renamed > 0);
}

}  // namespace normalizer_memory_test
