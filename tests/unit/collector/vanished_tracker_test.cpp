// The tracker on hand-made snapshots: which names it reports, in what order, and that names
// first read at a later tick are remembered too (the in-step comparison of sorted lists must
// behave exactly like the set of joined names it replaced).
#include <catch2/catch.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "collector/vanished_tracker.h"

namespace rdmatop {
namespace {

Snapshot host_with(std::vector<std::string> port_counters, std::vector<std::string> ethtool) {
  Snapshot snapshot;
  DeviceSample device;
  device.name = "mlx5_0";
  PortSample port;
  port.port = 1;
  for (const std::string& name : port_counters) port.hw_counters[name] = 1;
  port.counters["port_rcv_data"] = 1;
  device.ports.push_back(port);
  snapshot.devices.push_back(device);
  NetdevSample netdev;
  netdev.name = "ens1f0np0";
  for (const std::string& name : ethtool) netdev.ethtool[name] = 1;
  snapshot.netdevs.push_back(netdev);
  return snapshot;
}

std::vector<const SourceStatus*> inventory(const Snapshot& snapshot) {
  std::vector<const SourceStatus*> found;
  for (const SourceStatus& s : snapshot.sources) {
    if (s.source == kInventorySource) found.push_back(&s);
  }
  return found;
}

TEST_CASE("the tracker names what went, per target, in name order", "[vanished]") {
  VanishedTracker tracker;
  Snapshot first = host_with({"np_cnp_sent", "out_of_buffer", "rp_cnp_handled"},
                             {"rx_prio3_pause", "tx_prio3_pause"});
  tracker.observe(first);
  CHECK(inventory(first).empty());

  Snapshot second = host_with({"out_of_buffer"}, {"tx_prio3_pause"});
  tracker.observe(second);
  const auto statuses = inventory(second);
  REQUIRE(statuses.size() == 2);
  CHECK(statuses[0]->target == "ens1f0np0");
  CHECK(statuses[0]->state == SourceState::error);
  CHECK(statuses[0]->message == "read at an earlier tick, missing now: ethtool/rx_prio3_pause");
  CHECK(statuses[1]->target == "mlx5_0/1");
  CHECK(statuses[1]->message ==
        "read at an earlier tick, missing now: hw_counters/np_cnp_sent, "
        "hw_counters/rp_cnp_handled");

  // Back again: nothing to say.
  Snapshot third = host_with({"np_cnp_sent", "out_of_buffer", "rp_cnp_handled"},
                             {"rx_prio3_pause", "tx_prio3_pause"});
  tracker.observe(third);
  CHECK(inventory(third).empty());
}

TEST_CASE("a name first read at a later tick is remembered like the others", "[vanished]") {
  VanishedTracker tracker;
  Snapshot first = host_with({"out_of_buffer"}, {});
  tracker.observe(first);
  Snapshot second = host_with({"aaa_first", "out_of_buffer", "zzz_last"}, {"rx_pause"});
  tracker.observe(second);
  CHECK(inventory(second).empty());
  Snapshot third = host_with({"out_of_buffer"}, {});
  tracker.observe(third);
  const auto statuses = inventory(third);
  REQUIRE(statuses.size() == 2);
  CHECK(statuses[0]->message == "read at an earlier tick, missing now: ethtool/rx_pause");
  CHECK(statuses[1]->message ==
        "read at an earlier tick, missing now: hw_counters/aaa_first, hw_counters/zzz_last");
}

TEST_CASE("a long list is cut after five names and counted", "[vanished]") {
  VanishedTracker tracker;
  std::vector<std::string> many;
  for (char c = 'a'; c <= 'h'; ++c) many.push_back(std::string("counter_") + c);
  Snapshot first = host_with(many, {});
  tracker.observe(first);
  Snapshot second = host_with({}, {});
  tracker.observe(second);
  const auto statuses = inventory(second);
  REQUIRE(statuses.size() == 1);
  CHECK(statuses[0]->message ==
        "read at an earlier tick, missing now: hw_counters/counter_a, hw_counters/counter_b, "
        "hw_counters/counter_c, hw_counters/counter_d, hw_counters/counter_e and 3 more");
}

TEST_CASE("a whole object that went is named once, by its parent", "[vanished]") {
  VanishedTracker tracker;
  Snapshot first = host_with({"np_cnp_sent"}, {"rx_pause"});
  first.devices[0].ports.push_back(first.devices[0].ports[0]);
  first.devices[0].ports[1].port = 2;
  tracker.observe(first);

  Snapshot port_gone = host_with({"np_cnp_sent"}, {"rx_pause"});
  tracker.observe(port_gone);
  auto statuses = inventory(port_gone);
  REQUIRE(statuses.size() == 1);
  CHECK(statuses[0]->target == "mlx5_0");
  CHECK(statuses[0]->message == "read at an earlier tick, missing now: ports/2");

  Snapshot device_gone = host_with({}, {"rx_pause"});
  device_gone.devices.clear();
  tracker.observe(device_gone);
  statuses = inventory(device_gone);
  REQUIRE(statuses.size() == 1);
  CHECK(statuses[0]->target.empty());
  CHECK(statuses[0]->message == "read at an earlier tick, missing now: class/infiniband/mlx5_0");
}

TEST_CASE("a netdev and a device of one name share a target", "[vanished]") {
  VanishedTracker tracker;
  Snapshot first = host_with({}, {"rx_pause"});
  first.netdevs[0].name = "mlx5_0";
  first.devices[0].hw_counters["dev_counter"] = 1;
  first.netdevs[0].statistics["rx_bytes"] = 1;
  tracker.observe(first);
  Snapshot second = host_with({}, {});
  second.netdevs[0].name = "mlx5_0";
  tracker.observe(second);
  const auto statuses = inventory(second);
  REQUIRE(statuses.size() == 1);
  CHECK(statuses[0]->target == "mlx5_0");
  CHECK(statuses[0]->message ==
        "read at an earlier tick, missing now: ethtool/rx_pause, hw_counters/dev_counter, "
        "statistics/rx_bytes");
}

TEST_CASE("counter maps sharing one names vector across ticks are still compared as they must",
          "[vanished]") {
  // Sources hand every tick's map the same names vector until the names change; the tracker
  // skips a vector that equalled what it remembers, and must not skip one that missed a name.
  const auto shared_names = [](std::vector<std::string> names) {
    return std::make_shared<const CounterNames>(std::move(names));
  };
  const SharedCounterNames all = shared_names({"np_cnp_sent", "out_of_buffer", "rp_cnp_handled"});
  const SharedCounterNames fewer = shared_names({"np_cnp_sent", "out_of_buffer"});
  const auto tick = [](const SharedCounterNames& names) {
    Snapshot snapshot = host_with({}, {"rx_pause"});
    snapshot.devices[0].ports[0].hw_counters =
        CounterMap(names, std::vector<std::uint64_t>(names->size(), 7));
    return snapshot;
  };
  VanishedTracker tracker;
  for (const SharedCounterNames& names : {all, all, all}) {
    Snapshot snapshot = tick(names);
    tracker.observe(snapshot);
    CHECK(inventory(snapshot).empty());
  }
  for (int i = 0; i < 3; ++i) {  // the same vector, a name short each time: said every time
    Snapshot snapshot = tick(fewer);
    tracker.observe(snapshot);
    const auto statuses = inventory(snapshot);
    REQUIRE(statuses.size() == 1);
    CHECK(statuses[0]->message ==
          "read at an earlier tick, missing now: hw_counters/rp_cnp_handled");
  }
  Snapshot back = tick(all);
  tracker.observe(back);
  CHECK(inventory(back).empty());
  // A copy of the vector with the same names is compared, and equal.
  Snapshot copy = tick(shared_names(*all));
  tracker.observe(copy);
  CHECK(inventory(copy).empty());
  // A map emptied under the same target: every name it had is missing.
  Snapshot emptied = tick(all);
  emptied.devices[0].ports[0].hw_counters.clear();
  tracker.observe(emptied);
  const auto statuses = inventory(emptied);
  REQUIRE(statuses.size() == 1);
  CHECK(statuses[0]->message ==
        "read at an earlier tick, missing now: hw_counters/np_cnp_sent, hw_counters/out_of_buffer, "
        "hw_counters/rp_cnp_handled");
}

}  // namespace
}  // namespace rdmatop
