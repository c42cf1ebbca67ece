// The `scenarios` suite: every built-in scenario is played through the real pipeline
// (simulator tree -> collectors -> normalizer -> built-in rules) and must do what its file
// says: each `expect` rule fires at the stated port (and priority) within its tick budget, and
// an `expect_quiet` scenario produces no warning or critical finding at all, no alert its
// `expect_not` names ever fires, and no warning names a process of `expect_quiet_pids`. Counters
// read back from the tree never go down except at a driver reload or a 32-bit wrap.
// RDMATOP_SCENARIO=<name> limits the run to one scenario (one CTest test per scenario).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <map>

#include "simulator/builtin_scenarios.h"
#include "tests/unit/simulator/play.h"

using namespace rdmatop;

namespace {

using CounterKey = std::string;

/// Every raw counter of the snapshot, keyed "device/port/source/name" or "netdev/source/name".
std::map<CounterKey, std::uint64_t> raw_counters(const Snapshot& snap) {
  std::map<CounterKey, std::uint64_t> out;
  for (const auto& dev : snap.devices) {
    for (const auto& [k, v] : dev.hw_counters) out[dev.name + "/dev_hw/" + k] = v;
    for (const auto& port : dev.ports) {
      const std::string base = dev.name + "/" + std::to_string(port.port);
      for (const auto& [k, v] : port.hw_counters) out[base + "/hw/" + k] = v;
      for (const auto& [k, v] : port.counters) out[base + "/pma/" + k] = v;
    }
  }
  for (const auto& nd : snap.netdevs) {
    for (const auto& [k, v] : nd.ethtool) out[nd.name + "/ethtool/" + k] = v;
    for (const auto& [k, v] : nd.statistics) out[nd.name + "/stats/" + k] = v;
    if (nd.carrier_changes) out[nd.name + "/carrier_changes"] = *nd.carrier_changes;
  }
  return out;
}

/// The devices (and their netdevs) a phase reloads.
bool reloaded(const sim::Scenario& s, const std::string& phase, const std::string& key) {
  for (const auto& p : s.phases) {
    if (p.name != phase) continue;
    for (const auto& dev : p.reload) {
      const auto host = sim::scenario_host(s);
      for (const auto& spec : host) {
        if (spec.device != dev) continue;
        if (key.rfind(spec.device + "/", 0) == 0 || key.rfind(spec.netdev + "/", 0) == 0) {
          return true;
        }
      }
    }
  }
  return false;
}

/// Simulated seconds from the start at which the first phase that sets `key` on a port begins.
double onset_of(const sim::Scenario& scenario, const std::string& device) {
  double t = 0;
  for (const auto& phase : scenario.phases) {
    for (const auto& o : phase.ports) {
      if (o.selector.rfind(device, 0) == 0) return t;
    }
    t += phase.duration_s;
  }
  return -1;
}

bool is_fast_pfc_alert(const std::string& alert) {
  return alert == "RdmaPfcStormFromNic" || alert == "RdmaPfcPushbackFromNetwork" ||
         alert == "RdmaPfcDeadlockSuspected";
}

/// With the fast path on, every storm, pushback and deadlock the scenario expects is published
/// firing within one second of its phase's onset (docs/rules.md, "Sub-second PFC detection").
void check_fast_path(const sim::Scenario& scenario) {
  double last_onset_s = -1;
  for (const auto& e : scenario.expect) {
    if (is_fast_pfc_alert(e.alert))
      last_onset_s = std::max(last_onset_s, onset_of(scenario, e.device));
  }
  if (last_onset_s < 0) return;
  // Up to a few seconds past the last onset: enough to see the first publication (and keep the
  // suite's time in bounds).
  const test::PlayedFast played = test::play_fast(scenario, 0.1, last_onset_s + 5);
  REQUIRE(played.errors.empty());
  for (const auto& e : scenario.expect) {
    if (!is_fast_pfc_alert(e.alert)) continue;
    const double onset_s = onset_of(scenario, e.device);
    REQUIRE(onset_s >= 0);
    const std::int64_t onset_ms = played.start_ms + static_cast<std::int64_t>(onset_s * 1e3);
    std::int64_t first_ms = -1;
    for (const auto& [t_ms, report] : played.published) {
      const std::string prio = e.priority ? std::to_string(*e.priority) : "";
      if (test::has_firing(*report, e.alert, e.device, e.port, prio)) {
        first_ms = t_ms;
        break;
      }
    }
    INFO(e.alert << " on " << e.device << " with the fast path: published firing "
                 << (first_ms - onset_ms) << " ms after the onset");
    CHECK(first_ms >= onset_ms);
    CHECK(first_ms - onset_ms <= 1000);
    WARN(scenario.name << ": " << e.alert << " fast path " << (first_ms - onset_ms)
                       << " ms after onset");
  }
}

void check_scenario(const sim::Scenario& scenario) {
  const test::Played played = test::play(scenario);
  INFO("scenario " << scenario.name);
  REQUIRE(played.errors.empty());
  const double ticks_expected = scenario.duration_s() / scenario.interval_s;
  REQUIRE(static_cast<double>(played.reports.size()) >= ticks_expected - 1e-6);

  // Counters never go down, except at a reload (the first tick of the reloading phase) or a
  // 32-bit wrap (previous value above 2^31, as the rate code assumes).
  std::map<CounterKey, std::uint64_t> previous;
  for (std::size_t i = 0; i < played.reports.size(); ++i) {
    const auto now = raw_counters(played.reports[i]->snapshot);
    const bool phase_start = i == 0 || played.phases[i] != played.phases[i - 1];
    for (const auto& [key, value] : now) {
      const auto it = previous.find(key);
      if (it == previous.end() || value >= it->second) continue;
      const bool wrap32 = it->second > (1ULL << 31) && it->second < (1ULL << 32);
      const bool reset = phase_start && reloaded(scenario, played.phases[i], key);
      INFO("tick " << i + 1 << " " << key << " " << it->second << " -> " << value);
      CHECK((wrap32 || reset));
    }
    previous = now;
  }

  for (const auto& e : scenario.expect) {
    const std::string prio = e.priority ? std::to_string(*e.priority) : "";
    const std::size_t tick =
        e.target.empty() ? test::first_firing_tick(played, e.alert, e.device, e.port, prio, e.pid)
                         : test::first_firing_tick_for_target(played, e.alert, e.target);
    const std::string port = (e.port ? "/" + std::to_string(*e.port) : "") +
                             (e.pid ? " pid " + std::to_string(*e.pid) : "");
    INFO(e.alert << " on " << e.device << port << (prio.empty() ? "" : " prio " + prio) << e.target
                 << ": first firing at tick " << tick << ", budget " << e.within_ticks);
    CHECK(tick > 0);
    CHECK(tick <= static_cast<std::size_t>(e.within_ticks));
    // Reported, so the numbers can go into docs/scenarios.md.
    WARN(scenario.name << ": " << e.alert << " " << (e.target.empty() ? e.device : e.target)
                       << (e.target.empty() ? port : "") << " fires at tick " << tick);
  }
  // Alerts the scenario must not raise (e.g. the critical level of a warning-level fault); a
  // misspelt name would pass silently, so each must be a built-in alert.
  const RuleSetLoad pack = load_rule_set({}, true);
  for (const auto& alert : scenario.expect_not) {
    bool known = false;
    for (const auto& group : pack.groups) {
      for (const auto& rule : group.rules) known = known || (rule.is_alert && rule.name == alert);
    }
    INFO("expect_not names " << alert);
    CHECK(known);
  }
  for (std::size_t i = 0; i < played.reports.size(); ++i) {
    for (const Finding& f : played.reports[i]->findings) {
      for (const auto& alert : scenario.expect_not) {
        INFO("tick " << i + 1 << ": " << f.rule << " on " << label_value(f.labels, "device"));
        CHECK_FALSE((f.rule == alert && f.state == FindingState::firing));
      }
    }
  }
  // A well-configured process: not even a pending warning may name it.
  for (const std::uint32_t pid : scenario.expect_quiet_pids) {
    for (std::size_t i = 0; i < played.reports.size(); ++i) {
      for (const Finding& f : played.reports[i]->findings) {
        INFO("tick " << i + 1 << ": " << f.rule << " " << to_string(f.state) << " on pid "
                     << label_value(f.labels, "pid"));
        CHECK_FALSE((f.severity >= Severity::warning &&
                     label_value(f.labels, "pid") == std::to_string(pid)));
      }
    }
  }
  if (scenario.expect_quiet) {
    for (std::size_t i = 0; i < played.reports.size(); ++i) {
      for (const Finding& f : played.reports[i]->findings) {
        INFO("tick " << i + 1 << ": " << f.rule << " " << to_string(f.state) << " on "
                     << label_value(f.labels, "device"));
        CHECK(f.severity < Severity::warning);
      }
    }
  }
}

}  // namespace

TEST_CASE("Every built-in scenario triggers what it promises", "[scenarios]") {
  const auto& all = sim::builtin_scenarios();
  REQUIRE(all.errors.empty());
  REQUIRE(!all.scenarios.empty());
  const char* only = std::getenv("RDMATOP_SCENARIO");
  int played = 0;
  for (const auto& scenario : all.scenarios) {
    if (only != nullptr && scenario.name != only) continue;
    ++played;
    check_scenario(scenario);
    check_fast_path(scenario);
  }
  REQUIRE(played > 0);  // a misspelt RDMATOP_SCENARIO must not pass silently
}
