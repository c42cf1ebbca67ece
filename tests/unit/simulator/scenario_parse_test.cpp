#include <catch2/catch.hpp>
#include <set>

#include "exporters/simulator/builtin_scenarios.h"
#include "exporters/simulator/scenario.h"

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
      {"name: t\ndescription: d\nphases:\n  - duration: \"\\xff\\xfe\"\n", "duration"},
      {"name: t\ndescription: d\nphases: 5\n", "phases"},
      {"name: [a]\ndescription: d\nphases:\n  - duration: 1s\n", "needs a name"},
      {"name: t\ndescription: d\nphases:\n  - 5\n", "phase must be a mapping"},
      {"name: t\ndescription: d\nphases:\n  - duration: 1s\n    ports: [1, 2]\n", "ports must map"},
      {"name: t\ndescription: d\nphases:\n  - duration: 1s\n    reload: mlx5_0\n", "reload"},
      {"name: t\ndescription: d\nphases:\n  - duration: 1s\n    ports:\n      x: {load: [1]}\n",
       "must be a scalar"},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    const auto s = parse_scenario(c.text, "t.yaml");
    REQUIRE_FALSE(s.ok());
    CHECK_THAT(s.error().message, Catch::Contains(c.message));
    CHECK_THAT(s.error().message, Catch::StartsWith("t.yaml"));
  }
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
