#include <catch2/catch.hpp>

#include "pipeline/monitor.h"

using namespace rdmatop;

namespace {

// A scripted provider: rxe counters that grow by 100 packets per 1 s tick, then end.
SnapshotProvider scripted(int ticks) {
  return [ticks](std::uint64_t seq) -> std::optional<Snapshot> {
    if (seq > static_cast<std::uint64_t>(ticks)) return std::nullopt;
    Snapshot snap;
    snap.seq = seq;
    snap.taken = std::chrono::steady_clock::time_point(std::chrono::seconds(seq));
    snap.wall = std::chrono::system_clock::time_point(std::chrono::seconds(1'700'000'000 + seq));
    DeviceSample dev;
    dev.name = "rxe0";
    dev.driver = "rxe";
    PortSample port;
    port.port = 1;
    port.hw_counters = {{"sent_pkts", 100 * seq}};
    dev.ports.push_back(port);
    snap.devices.push_back(dev);
    return snap;
  };
}

const SeriesWithRate* tx_packets(const PublishedTick& report) {
  for (const auto& s : report.ports.at(0).series) {
    if (s.series.name == "rdma_packets_total") return &s;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("Monitor publishes one report per tick with rates against the previous tick",
          "[monitor]") {
  Monitor monitor(scripted(3), {}, {"broken.yaml:1:1: bad"});
  CHECK(monitor.latest() == nullptr);
  const auto first = monitor.step();
  REQUIRE(first != nullptr);
  REQUIRE(tx_packets(*first) != nullptr);
  CHECK(tx_packets(*first)->rate.state == RateState::init);
  const auto second = monitor.step();
  REQUIRE(second != nullptr);
  CHECK(tx_packets(*second)->rate.state == RateState::ok);
  CHECK(tx_packets(*second)->rate.per_second == Approx(100.0));
  CHECK(monitor.latest() == second);
  CHECK(second->rule_errors == std::vector<std::string>{"broken.yaml:1:1: bad"});
  // The first report is immutable: later ticks do not change it.
  CHECK(tx_packets(*first)->series.value == 100);
  monitor.step();
  CHECK(monitor.ticks() == 3);
  CHECK(monitor.step() == nullptr);  // the provider ran out
  CHECK(monitor.ticks() == 3);
}
