// The built-in pack diagnosing hand-built snapshots through the real normalizer, the way
// `rdmatop report` does: a rising storm-watchdog counter on an mlx5 port must become a
// critical finding on that port; the same port with a flat counter must not.
#include <catch2/catch.hpp>

#include "collector/normalize/normalizer.h"
#include "rules/builtin_pack.h"
#include "rules/diagnoser.h"

using namespace rdmatop;

namespace {

Snapshot mlx5_snapshot(std::uint64_t storm_errors, std::int64_t unix_seconds) {
  Snapshot snap;
  snap.wall = std::chrono::system_clock::time_point(std::chrono::seconds(unix_seconds));
  DeviceSample dev;
  dev.name = "mlx5_0";
  dev.driver = "mlx5";
  PortSample port;
  port.port = 1;
  port.state = "ACTIVE";
  port.state_id = 4;
  port.link_layer = "Ethernet";
  port.netdev = "ens1f0np0";
  port.gid_table_read = true;
  port.gids = {{3, "0000:0000:0000:0000:0000:ffff:c0a8:6401", "RoCE v2", "ens1f0np0"}};
  dev.ports.push_back(port);
  snap.devices.push_back(dev);
  NetdevSample nd;
  nd.name = "ens1f0np0";
  nd.mtu = 4200;
  nd.operstate = "up";
  nd.ethtool = {{"tx_pause_storm_warning_events", 0},
                {"tx_pause_storm_error_events", storm_errors}};
  snap.netdevs.push_back(nd);
  return snap;
}

bool has_finding(const std::vector<Finding>& findings, const std::string& rule) {
  for (const auto& f : findings) {
    if (f.rule == rule && label_value(f.labels, "device") == "mlx5_0") return true;
  }
  return false;
}

}  // namespace

TEST_CASE("built-in pack: storm watchdog counter rising is a critical finding", "[diagnosis]") {
  auto load = load_builtin_rules();
  REQUIRE(load.errors.empty());
  Diagnoser rising(load.groups);
  Diagnoser flat(load.groups);
  for (int tick = 0; tick < 3; ++tick) {
    const std::int64_t t = 1'700'000'000 + tick * 5;
    const auto a = make_observation(mlx5_snapshot(static_cast<std::uint64_t>(tick), t));
    const auto b = make_observation(mlx5_snapshot(7, t));
    CHECK(rising.observe(a.series, t * 1000).empty());
    CHECK(flat.observe(b.series, t * 1000).empty());
  }
  const auto findings = rising.findings();
  REQUIRE(has_finding(findings, "RdmaPfcStormWatchdogTriggered"));
  CHECK(worst_active_severity(findings) == Severity::critical);
  CHECK(findings.front().severity == Severity::critical);  // most severe first
  CHECK_FALSE(has_finding(flat.findings(), "RdmaPfcStormWatchdogTriggered"));
}

TEST_CASE("built-in pack: lifetime evidence is read once from totals and never alarms live",
          "[diagnosis][lifetime]") {
  auto load = load_builtin_rules();
  REQUIRE(load.errors.empty());
  Diagnoser diagnoser(load.groups);
  // Seven storm-watchdog errors since the driver loaded, flat from now on.
  const std::int64_t t0 = 1'700'000'000;
  const auto first = make_observation(mlx5_snapshot(7, t0));
  REQUIRE(diagnoser.observe(first.series, t0 * 1000).empty());
  auto findings = diagnoser.findings();
  REQUIRE(has_finding(findings, "RdmaLifetimePauseStormEvents"));
  // Live: nothing rose, so the live storm rule stays silent and nothing live is active.
  CHECK_FALSE(has_finding(findings, "RdmaPfcStormWatchdogTriggered"));
  CHECK(worst_active_severity(findings) == Severity::none);
  CHECK(worst_lifetime_severity(findings) == Severity::warning);
  for (const Finding& f : findings) {
    if (f.rule == "RdmaLifetimePauseStormEvents") {
      CHECK(is_lifetime(f));
      CHECK(std::string(state_name(f)) == "lifetime");
    }
  }
  // Later ticks do not evaluate lifetime rules again: a total that appears only later (the
  // counter was reset and counts anew) is for the live rules, not new history.
  for (int tick = 1; tick < 4; ++tick) {
    const auto next = make_observation(mlx5_snapshot(7, t0 + tick * 5));
    diagnoser.observe(next.series, (t0 + tick * 5) * 1000);
  }
  std::size_t lifetime = 0;
  for (const Finding& f : diagnoser.findings()) lifetime += is_lifetime(f) ? 1 : 0;
  CHECK(lifetime == 1);
  // Coverage was computed for every alert rule, lifetime ones included.
  bool saw_lifetime_rule = false;
  for (const RuleCoverage& c : diagnoser.coverage()) saw_lifetime_rule |= c.lifetime;
  CHECK(saw_lifetime_rule);
  CHECK(diagnoser.coverage().size() > 40);
}

TEST_CASE("rules export leaves lifetime rules out", "[diagnosis][lifetime]") {
  auto load = load_builtin_rules();
  REQUIRE(load.errors.empty());
  std::size_t lifetime_before = 0;
  for (const RuleGroup& g : load.groups) {
    for (const Rule& r : g.rules) lifetime_before += is_lifetime_rule(r) ? 1 : 0;
  }
  CHECK(lifetime_before > 20);
  for (const RuleGroup& g : without_lifetime_rules(load.groups)) {
    for (const Rule& r : g.rules) CHECK_FALSE(is_lifetime_rule(r));
  }
}
