#include <catch2/catch.hpp>
#include <cmath>

#include "simulator/host_model.h"
#include "simulator/tree_render.h"

using namespace rdmatop::sim;

namespace {

HostModel one_mlx5_port() {
  std::vector<PortSpec> specs = default_host();
  specs.resize(1);
  return make_host_model(specs);
}

double counter(const HostModel& h, const char* name) {
  return h.ports.at(0).counters.at(name);
}

}  // namespace

TEST_CASE("The default host has a dual-port ConnectX-6 Dx and a bnxt_re", "[simulator][model]") {
  const auto host = default_host();
  REQUIRE(host.size() == 3);
  CHECK(host[0].kind == NicKind::mlx5);
  CHECK(host[1].kind == NicKind::mlx5);
  CHECK(host[0].pci.substr(0, 10) == host[1].pci.substr(0, 10));  // same PCI device, 2 functions
  CHECK(host[2].kind == NicKind::bnxt_re);
}

TEST_CASE("Traffic follows line rate and load", "[simulator][model]") {
  HostModel h = one_mlx5_port();
  PortConditions c;
  c.load = 0.5;
  c.rx_pause = 0;
  c.tx_pause = 0;
  set_conditions(h, {c});
  advance(h, 10);
  // 100 Gb/s = 12.5 GB/s; half of it for 10 s.
  CHECK(counter(h, "rdma_tx_bytes") == Approx(62.5e9));
  CHECK(counter(h, "rdma_rx_bytes") == Approx(62.5e9));
  CHECK(counter(h, "rdma_tx_packets") == Approx(62.5e9 / roce_frame_bytes(4200)));
  CHECK(counter(h, "rx_bits") == Approx(1e12));
}

TEST_CASE("Pause time and pause frames move together", "[simulator][model]") {
  HostModel h = one_mlx5_port();
  PortConditions c;
  c.tx_pause = 0.98;
  c.rx_pause = 0.25;
  set_conditions(h, {c});
  advance(h, 4);
  // Durations are µs of pause; one frame per refresh at half the 65535-quanta maximum.
  CHECK(counter(h, "tx_pause_us") == Approx(0.98 * 4e6));
  CHECK(counter(h, "rx_pause_us") == Approx(0.25 * 4e6));
  const double refresh_us = 65535.0 * 512 / 100e9 / 2 * 1e6;
  CHECK(counter(h, "tx_pause_frames") == Approx(counter(h, "tx_pause_us") / refresh_us));
  CHECK(counter(h, "rx_pause_frames") == Approx(counter(h, "rx_pause_us") / refresh_us));
  // Being paused 25% of the time costs 25% of the transmit rate; pausing the peer 98% of
  // the time leaves 2% of the receive rate.
  CHECK(counter(h, "rdma_tx_bytes") == Approx(c.load * 0.75 * 12.5e9 * 4));
  CHECK(counter(h, "rdma_rx_bytes") == Approx(c.load * 0.02 * 12.5e9 * 4));
}

TEST_CASE("A pause that never lifts has no transitions; PFC off pauses nothing",
          "[simulator][model]") {
  HostModel h = one_mlx5_port();
  PortConditions c;
  c.pause_lifts = false;
  c.rx_pause = 1;
  set_conditions(h, {c});
  advance(h, 5);
  CHECK(counter(h, "rx_pause_transitions") == 0);
  CHECK(counter(h, "rx_pause_us") == Approx(5e6));
  CHECK(counter(h, "rdma_tx_bytes") == 0);
  PortConditions off;
  off.pfc = false;
  HostModel h2 = one_mlx5_port();
  set_conditions(h2, {off});
  advance(h2, 5);
  CHECK(counter(h2, "rx_pause_us") == 0);
  CHECK(counter(h2, "tx_pause_frames") == 0);
}

TEST_CASE("802.3x pause takes the pause time; FEC lane skew; PCIe errors and stalls",
          "[simulator][model]") {
  HostModel h = one_mlx5_port();
  PortConditions c;
  c.global_pause = true;
  c.tx_pause = 0.5;
  c.pre_fec_ber = 1e-6;
  c.fec_lane_skew = 0.9;
  c.pcie_errors_per_s = 2;
  c.pcie_stalled = 0.25;
  set_conditions(h, {c});
  advance(h, 4);
  CHECK(counter(h, "tx_global_pause_us") == Approx(2e6));
  CHECK(counter(h, "tx_global_pause_frames") > 0);
  CHECK(counter(h, "tx_pause_us") == 0);  // no PFC pause while link pause is on
  CHECK(counter(h, "fec_lane0_corrected_bits") == Approx(0.9 * counter(h, "fec_corrected_bits")));
  CHECK(counter(h, "pcie_signal_errors") == Approx(8));
  CHECK(counter(h, "pcie_stalled_rd_s") == Approx(1));
}

TEST_CASE("CNPs answer CE marks only while the notification point is enabled",
          "[simulator][model]") {
  HostModel h = one_mlx5_port();
  PortConditions c;
  c.ecn_marked = 0.01;
  set_conditions(h, {c});
  advance(h, 5);
  CHECK(counter(h, "ecn_marked") > 0);
  CHECK(counter(h, "cnp_sent") <= counter(h, "ecn_marked"));
  CHECK(counter(h, "cnp_sent") > 0);
  const double sent = counter(h, "cnp_sent");
  c.np_enabled = false;
  set_conditions(h, {c});
  advance(h, 5);
  CHECK(counter(h, "cnp_sent") == sent);
}

TEST_CASE("Counters are monotonic; a reload restarts them; link loss counts flaps",
          "[simulator][model]") {
  HostModel h = make_host_model(default_host());
  std::vector<PortConditions> c(h.ports.size());
  c[1].loss = 0.001;
  c[1].ack_timeouts_per_s = 5;
  set_conditions(h, c);
  auto before = h.ports;
  for (int i = 0; i < 20; ++i) {
    advance(h, 1);
    for (std::size_t p = 0; p < h.ports.size(); ++p) {
      for (const auto& [name, value] : h.ports[p].counters) {
        INFO(name);
        CHECK(value >= before[p].counters.at(name));
      }
    }
    before = h.ports;
  }
  CHECK(h.ports[1].counters.at("ack_timeouts") > 0);
  reload_driver(h, "mlx5_1");
  CHECK(h.ports[1].counters.at("ack_timeouts") == 0);
  CHECK(h.ports[1].reloads == 1);
  CHECK(h.ports[0].counters.at("rdma_tx_bytes") > 0);  // other devices untouched

  c[0].link_up = false;
  set_conditions(h, c);
  const double bytes = h.ports[0].counters.at("rdma_tx_bytes");
  advance(h, 5);
  CHECK(h.ports[0].counters.at("rdma_tx_bytes") == bytes);  // no carrier, no traffic
  c[0].link_up = true;
  set_conditions(h, c);
  CHECK(h.ports[0].counters.at("link_down_events") == 1);
  CHECK(h.ports[0].counters.at("carrier_changes") == 2);  // down and up again
}

TEST_CASE("Printed values truncate and wrap 32-bit counters", "[simulator][model]") {
  CHECK(printed_value(0, 0) == 0);
  CHECK(printed_value(-3, 0) == 0);
  CHECK(printed_value(std::nan(""), 32) == 0);
  CHECK(printed_value(41.9, 0) == 41);
  CHECK(printed_value(4294967295.0, 32) == 4294967295u);
  CHECK(printed_value(4294967296.0 + 17, 32) == 17);
  CHECK(printed_value(4294967296.0 + 17, 0) == 4294967313u);
}

TEST_CASE("RoCE MTU follows the netdev MTU", "[simulator][model]") {
  CHECK(roce_mtu(1500) == 1024);
  CHECK(roce_mtu(4200) == 4096);
  CHECK(roce_mtu(9000) == 4096);
  CHECK(roce_mtu(4191) == 2048);
  CHECK(roce_mtu(68) == 256);
}
