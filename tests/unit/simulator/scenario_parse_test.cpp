#include <catch2/catch.hpp>
#include <set>

#include "simulator/builtin_scenarios.h"
#include "simulator/scenario.h"

using namespace rdmatop;
using namespace rdmatop::sim;

namespace {

const char* kMinimal = R"(name: t
description: a test
phases:
  - duration: 30s
)";

}  // namespace

TEST_CASE("A minimal scenario parses with defaults", "[simulator][scenario]") {
  const auto s = parse_scenario(kMinimal, "t.yaml");
  REQUIRE(s.ok());
  CHECK(s->name == "t");
  CHECK(s->interval_s == 5);
  REQUIRE(s->phases.size() == 1);
  CHECK(s->phases[0].duration_s == 30);
  CHECK(s->duration_s() == 30);
  CHECK(s->expect.empty());
  CHECK_FALSE(s->expect_quiet);
}

TEST_CASE("Scenario settings apply to the port conditions", "[simulator][scenario]") {
  const auto s = parse_scenario(R"(name: t
description: d
interval: 2s
baseline:
  "*": {load: 0.5}
phases:
  - name: p
    duration: 1m30s
    reload: [mlx5_1]
    ports:
      mlx5_0/1: {tx_pause: 0.9, link: down, pfc: off, mtu: 1500, ack_timeouts_per_s: 3}
expect:
  - {alert: A, device: mlx5_0, port: 1, priority: 3, within_ticks: 7}
)",
                                "t.yaml");
  REQUIRE(s.ok());
  CHECK(s->interval_s == 2);
  CHECK(s->phases[0].duration_s == 90);
  CHECK(s->phases[0].reload == std::vector<std::string>{"mlx5_1"});
  PortConditions c;
  REQUIRE(apply_settings(s->baseline.at(0), c).ok());
  REQUIRE(apply_settings(s->phases[0].ports.at(0), c).ok());
  CHECK(c.load == 0.5);
  CHECK(c.tx_pause == 0.9);
  CHECK_FALSE(c.link_up);
  CHECK_FALSE(c.pfc);
  CHECK(c.mtu == 1500);
  CHECK(c.ack_timeouts_per_s == 3);
  REQUIRE(s->expect.size() == 1);
  CHECK(s->expect[0].priority == 3);
  CHECK(s->expect[0].within_ticks == 7);
}

TEST_CASE("Bad scenario files give a clear error, never a crash", "[simulator][scenario]") {
  struct Case {
    const char* text;
    const char* message;  // a fragment the error must contain
  };
  const Case cases[] = {
      {"", "empty scenario"},
      {"[1, 2", "t.yaml:"},
      {"name: t\ndescription: d\n", "phases"},
      {"description: d\nphases:\n  - duration: 1s\n", "needs a name"},
      {"name: t\nphases:\n  - duration: 1s\n", "description"},
      {"name: t\ndescription: d\nphases: []\n", "phases"},
      {"name: t\ndescription: d\nphases:\n  - name: x\n", "duration"},
      {"name: t\ndescription: d\nphases:\n  - duration: -5\n", "negative"},
      {"name: t\ndescription: d\nphases:\n  - duration: 0s\n", "positive"},
      {"name: t\ndescription: d\nphases:\n  - duration: 5parsecs\n", "bad duration"},
      {"name: t\ndescription: d\nbogus: 1\nphases:\n  - duration: 1s\n", "unknown key 'bogus'"},
      {"name: t\ndescription: d\nphases:\n  - duration: 1s\n    ports:\n      x: {lode: 1}\n",
       "unknown port setting 'lode'"},
      {"name: t\ndescription: d\nphases:\n  - duration: 1s\n    ports:\n      x: {load: 1.5}\n",
       "between 0 and 1"},
      {"name: t\ndescription: d\nphases:\n  - duration: 1s\n    ports:\n      x: {load: abc}\n",
       "not a number"},
      {"name: t\ndescription: d\nphases:\n  - duration: 1s\n    ports:\n      x: {link: maybe}\n",
       "not a boolean"},
      {"name: t\ndescription: d\nphases:\n  - duration: 1s\n    ports:\n      x: {mtu: 12}\n",
       "mtu"},
      {"name: t\ndescription: d\nphases:\n  - duration: 1s\n    ports:\n      x: "
       "{ack_timeouts_per_s: -1}\n",
       "negative"},
      {"name: t\ndescription: d\ninterval: 0s\nphases:\n  - duration: 1s\n", "interval"},
      {"name: t\ndescription: d\nstart:\n  x: {no_such_counter: 1}\nphases:\n  - duration: 1s\n",
       "unknown model counter"},
      {"name: t\ndescription: d\nphases:\n  - duration: 1s\nexpect:\n  - {alert: A}\n",
       "needs alert, device and within_ticks"},
      {"name: t\ndescription: d\nphases:\n  - duration: 1s\nexpect:\n  - {alert: A, device: d, "
       "within_ticks: 0}\n",
       "within_ticks"},
      {"name: t\ndescription: d\nphases:\n  - duration: 1s\nexpect:\n  - {alert: A, device: d, "
       "within_ticks: 3, priority: 9}\n",
       "priority"},
      // Found by fuzz/scenario_fuzz.cpp: a port number cast from any double to u32 (UBSan).
      {"name: t\ndescription: d\nphases:\n  - duration: 1s\nexpect:\n  - {alert: A, device: d, "
       "within_ticks: 3, port: 7777777777777}\n",
       "port must be an integer from 1 to 255"},
      // 3e9 overflowed the int that holds it (#22 item 8; UBSan: float-cast-overflow).
      {"name: t\ndescription: d\nphases:\n  - duration: 1s\nexpect:\n  - {alert: A, device: d, "
       "within_ticks: 3000000000}\n",
       "within_ticks must be a positive integer up to 1000000"},
      {"name: t\ndescription: d\nphases:\n  - duration: \"\\xff\\xfe\"\n", "duration"},
      {"name: t\ndescription: d\nphases: 5\n", "phases"},
      {"name: [a]\ndescription: d\nphases:\n  - duration: 1s\n", "needs a name"},
      {"name: t\ndescription: d\nphases:\n  - 5\n", "phase must be a mapping"},
      {"name: t\ndescription: d\nphases:\n  - duration: 1s\n    ports: [1, 2]\n", "ports must map"},
      {"name: t\ndescription: d\nphases:\n  - duration: 1s\n    reload: mlx5_0\n", "reload"},
      {"name: t\ndescription: d\nphases:\n  - duration: 1s\n    ports:\n      x: {load: [1]}\n",
       "must be a scalar"},
      {"name: t\ndescription: d\nnics: [mlx5_9]\nphases:\n  - duration: 1s\n",
       "unknown NIC 'mlx5_9'"},
      {"name: t\ndescription: d\nnics: rxe0\nphases:\n  - duration: 1s\n", "nics must be a list"},
      {"name: t\ndescription: d\nexpect_not: A\nphases:\n  - duration: 1s\n",
       "expect_not must be a list"},
      {"name: t\ndescription: d\nphases:\n  - duration: 1s\n    ports:\n      x: "
       "{fw_running: \"22.39 1002\"}\n",
       "firmware version"},
      {"name: t\ndescription: d\nphases:\n  - duration: 1s\n    ports:\n      x: "
       "{fw_stored: \"\"}\n",
       "firmware version"},
      {"name: t\ndescription: d\nphases:\n  - duration: 1s\n    ports:\n      x: "
       "{fw_stored: 0123456789012345678901234567890123}\n",
       "firmware version"},
      {"name: t\ndescription: d\nphases:\n  - duration: 1s\n    ports:\n      x: "
       "{mtu: 67}\n",
       "mtu: must be an integer 68..9216"},
      {"name: t\ndescription: d\nphases:\n  - duration: 1s\n    ports:\n      x: "
       "{mtu: 1500.5}\n",
       "mtu: must be an integer 68..9216"},
      {"name: t\ndescription: d\nphases:\n  - duration: 1s\n    ports:\n      x: "
       "{pfc_storm_prevention_ms: 9000}\n",
       "0..8000 or 65535"},
      {"name: t\ndescription: d\nphases:\n  - duration: 1s\n    ports:\n      x: "
       "{pfc_storm_prevention_ms: 1.5}\n",
       "0..8000 or 65535"},
      {"name: t\ndescription: d\nphases:\n  - duration: 1s\n    ports:\n      x: "
       "{fw_fatal_errors_per_min: -1}\n",
       "negative"},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    const auto s = parse_scenario(c.text, "t.yaml");
    REQUIRE_FALSE(s.ok());
    CHECK_THAT(s.error().message, Catch::Contains(c.message));
    CHECK_THAT(s.error().message, Catch::StartsWith("t.yaml"));
  }
}

TEST_CASE("Firmware settings, extra NICs, device-level and forbidden expectations",
          "[simulator][scenario]") {
  const auto s = parse_scenario(R"(name: t
description: d
nics: [mlx5_2, rxe0]
phases:
  - duration: 1m
    ports:
      mlx5_0: {fw_running: 22.41.1010, fw_stored: 22.42.1000, fw_errors_per_min: 2,
               fw_fatal_errors_per_min: 0.5, health_recovers: no, pfc_storm_prevention_ms: 0}
expect:
  - {alert: RdmaFirmwareFatalError, device: mlx5_0, within_ticks: 3}
expect_not: [RdmaOutOfSequenceCritical]
)",
                                "t.yaml");
  REQUIRE(s.ok());
  CHECK(s->nics == std::vector<std::string>{"mlx5_2", "rxe0"});
  CHECK(s->expect_not == std::vector<std::string>{"RdmaOutOfSequenceCritical"});
  REQUIRE(s->expect.size() == 1);
  CHECK_FALSE(s->expect[0].port);  // a device-level alert: no port label to match
  PortConditions c;
  REQUIRE(apply_settings(s->phases[0].ports.at(0), c).ok());
  CHECK(c.fw_running == "22.41.1010");
  CHECK(c.fw_stored == "22.42.1000");
  CHECK(c.fw_errors_per_min == 2);
  CHECK(c.fw_fatal_errors_per_min == 0.5);
  CHECK_FALSE(c.health_recovers);
  CHECK(c.pfc_storm_prevention_ms == 0);
  // Defaults: the NIC's own firmware, recovery works, storm prevention on auto.
  const PortConditions d;
  CHECK(d.fw_running.empty());
  CHECK(d.health_recovers);
  CHECK(d.pfc_storm_prevention_ms == 65535);
  // Chained scenarios keep every part's extra NICs, once each.
  auto other = parse_scenario("name: o\ndescription: d\nnics: [rxe0]\nphases:\n  - duration: 1s\n",
                              "o.yaml");
  REQUIRE(other.ok());
  CHECK(chain_scenarios({*s, *other}).nics == std::vector<std::string>{"mlx5_2", "rxe0"});
}

TEST_CASE("Errors point at the offending line", "[simulator][scenario]") {
  const auto s = parse_scenario(
      "name: t\ndescription: d\nphases:\n  - duration: 1s\n    ports:\n"
      "      x: {lode: 1}\n",
      "f.yaml");
  REQUIRE_FALSE(s.ok());
  CHECK_THAT(s.error().message, Catch::StartsWith("f.yaml:6:"));
}

TEST_CASE("Selectors name all ports, a device, or one port", "[simulator][scenario]") {
  CHECK(selector_matches("*", "mlx5_0", 1));
  CHECK(selector_matches("mlx5_0", "mlx5_0", 1));
  CHECK(selector_matches("mlx5_0/1", "mlx5_0", 1));
  CHECK_FALSE(selector_matches("mlx5_0/2", "mlx5_0", 1));
  CHECK_FALSE(selector_matches("mlx5_1", "mlx5_0", 1));
  CHECK_FALSE(selector_matches("mlx5", "mlx5_0", 1));
}

TEST_CASE("Scenarios chain into one timeline", "[simulator][scenario]") {
  auto a = parse_scenario(kMinimal, "a.yaml");
  auto b = parse_scenario(
      "name: b\ndescription: e\ninterval: 1s\nbaseline:\n  \"*\": {load: 0.1}\nphases:\n"
      "  - {name: x, duration: 10s}\n  - {name: y, duration: 20s}\n",
      "b.yaml");
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  const Scenario chain = chain_scenarios({*a, *b});
  CHECK(chain.name == "t,b");
  CHECK(chain.interval_s == 5);  // the first part's
  REQUIRE(chain.phases.size() == 3);
  CHECK(chain.duration_s() == 60);
  CHECK(chain.phases[1].name == "b: x");
  // b's baseline travels with b's phases only.
  CHECK(chain.phases[0].ports.empty());
  REQUIRE(chain.phases[2].ports.size() == 1);
  CHECK(chain.phases[2].ports[0].selector == "*");
}

TEST_CASE("A chain keeps every part's processes once", "[simulator][scenario]") {
  const std::string head = "description: d\nphases:\n  - duration: 10s\nprocesses:\n";
  auto a =
      parse_scenario("name: a\n" + head + "  - {pid: 1, comm: x, devices: [mlx5_0]}\n", "a.yaml");
  auto b = parse_scenario("name: b\n" + head +
                              "  - {pid: 1, comm: x, devices: [mlx5_0]}\n"
                              "  - {pid: 2, comm: y, devices: [mlx5_1]}\n",
                          "b.yaml");
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  const Scenario chain = chain_scenarios({*a, *b});
  REQUIRE(chain.processes.size() == 2);
  CHECK(chain.processes[0].pid == 1);
  CHECK(chain.processes[1].pid == 2);
}

TEST_CASE("Every built-in scenario parses and is unique", "[simulator][scenario]") {
  const auto& all = builtin_scenarios();
  CHECK(all.errors.empty());
  REQUIRE(all.scenarios.size() >= 14);
  CHECK(all.scenarios.front().name == "healthy");
  std::set<std::string> names;
  for (const auto& s : all.scenarios) {
    INFO(s.name);
    CHECK(names.insert(s.name).second);
    CHECK_FALSE(s.description.empty());
    CHECK(s.description.find('\n') == std::string::npos);
    CHECK((s.expect_quiet || !s.expect.empty()));
  }
  CHECK(find_builtin_scenario("pfc-storm") != nullptr);
  CHECK(find_builtin_scenario("no-such") == nullptr);
}

TEST_CASE("Processes, process expectations and quiet pids parse; bad ones name their line",
          "[simulator][scenario]") {
  const auto s = parse_scenario(R"(name: t
description: d
nics: [rxe0]
processes:
  - {pid: 7, comm: app, devices: [mlx5_0, rxe0], qps: 4, memlock: 65536, pinned: 8192, cpus: 0-3}
  - {pid: 8, comm: other, devices: [bnxt_re0], memlock: unlimited, cap_ipc_lock: yes}
  - {pid: 9, comm: bound, devices: [mlx5_1], counter_share: 0.25}
phases:
  - duration: 1m
expect:
  - {alert: RdmaProcessMemlockLow, pid: 7, within_ticks: 3}
expect_quiet_pids: [8]
)",
                                "t.yaml");
  REQUIRE(s.ok());
  REQUIRE(s->processes.size() == 3);
  const SimProcess& p = s->processes[0];
  CHECK(p.pid == 7);
  CHECK(p.comm == "app");
  CHECK(p.devices == std::vector<std::string>{"mlx5_0", "rxe0"});
  CHECK(p.qps == 4);
  CHECK(p.cqs == 1);
  CHECK(p.memlock_bytes == std::optional<std::uint64_t>(65536));
  CHECK(p.pinned_bytes == 8192);
  CHECK(p.cpus == "0-3");
  CHECK_FALSE(p.cap_ipc_lock);
  CHECK_FALSE(s->processes[1].memlock_bytes);
  CHECK(s->processes[1].cap_ipc_lock);
  CHECK(p.counter_share == 0);
  CHECK(s->processes[2].counter_share == 0.25);
  REQUIRE(s->expect.size() == 1);
  CHECK(s->expect[0].pid == std::optional<std::uint32_t>(7));
  CHECK(s->expect[0].device.empty());
  CHECK(s->expect_quiet_pids == std::vector<std::uint32_t>{8});

  const std::string head = "name: t\ndescription: d\nphases:\n  - duration: 1s\nprocesses:\n";
  struct Case {
    std::string process;
    const char* message;
  };
  const Case cases[] = {
      {"  - {comm: a, devices: [mlx5_0]}\n", "needs a pid"},
      {"  - {pid: 0, comm: a, devices: [mlx5_0]}\n", "pid must be"},
      {"  - {pid: 5000000, comm: a, devices: [mlx5_0]}\n", "pid must be"},
      {"  - {pid: 1, devices: [mlx5_0]}\n", "needs a comm"},
      {"  - {pid: 1, comm: a-name-far-too-long, devices: [mlx5_0]}\n", "1..15 printable"},
      {"  - {pid: 1, comm: a}\n", "list of devices"},
      {"  - {pid: 1, comm: a, devices: [rxe0]}\n", "no simulated RDMA device 'rxe0'"},
      {"  - {pid: 1, comm: a, devices: [mlx5_0], qps: -1}\n", "qps must be an integer"},
      {"  - {pid: 1, comm: a, devices: [mlx5_0], qps: 5000}\n", "qps must be an integer"},
      {"  - {pid: 1, comm: a, devices: [mlx5_0], memlock: lots}\n", "memlock"},
      {"  - {pid: 1, comm: a, devices: [mlx5_0], pinned: 1000}\n", "4 KiB pages"},
      {"  - {pid: 1, comm: a, devices: [mlx5_0], cpus: 0-32}\n", "CPUs 0-31"},
      {"  - {pid: 1, comm: a, devices: [mlx5_0], cpus: 3-1}\n", "CPU list"},
      {"  - {pid: 1, comm: a, devices: [mlx5_0], cap_ipc_lock: maybe}\n", "not a boolean"},
      {"  - {pid: 1, comm: a, devices: [mlx5_0], nice: 5}\n", "unknown key 'nice'"},
      {"  - {pid: 1, comm: a, devices: [mlx5_0]}\n  - {pid: 1, comm: b, devices: [mlx5_1]}\n",
       "pid used twice"},
      {"  - {pid: 1, comm: a, devices: [mlx5_0]}\nexpect_quiet_pids: [2]\n", "names no process"},
      {"  - {pid: 1, comm: a, devices: [mlx5_0], counter_share: 0}\n", "counter_share must be"},
      {"  - {pid: 1, comm: a, devices: [mlx5_0], counter_share: 1.5}\n", "counter_share must be"},
      {"  - {pid: 1, comm: a, devices: [mlx5_0], counter_share: lots}\n", "counter_share must be"},
      {"  - {pid: 1, comm: a, devices: [mlx5_0, bnxt_re0], counter_share: 0.5}\n",
       "bnxt_re0 cannot bind QP counters"},
      {"  - {pid: 1, comm: a, devices: [mlx5_0], counter_share: 0.6}\n"
       "  - {pid: 2, comm: b, devices: [mlx5_0], counter_share: 0.6}\n",
       "counter_share on mlx5_0 adds up to > 1"},
      {"  - {pid: 1, comm: a, devices: [mlx5_0]}\nexpect:\n  - {alert: A, pid: x, within_ticks: "
       "1}\n",
       "pid must be"},
  };
  for (const auto& c : cases) {
    INFO(c.process);
    const auto bad = parse_scenario(head + c.process, "t.yaml");
    REQUIRE_FALSE(bad.ok());
    CHECK_THAT(bad.error().message, Catch::Contains(c.message));
    CHECK_THAT(bad.error().message, Catch::StartsWith("t.yaml:"));
  }
}
