// Test helper: plays a scenario through the real pipeline (simulator tree -> collectors ->
// Monitor with the built-in rules) and keeps every PublishedTick.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/monitor.h"
#include "rules/rule_set.h"
#include "simulator/sim_sources.h"
#include "simulator/simulator.h"

namespace rdmatop::test {

struct Played {
  std::vector<std::shared_ptr<const PublishedTick>> reports;  ///< reports[i] is tick i + 1
  std::vector<std::string> phases;                            ///< phase of each tick
  std::vector<std::string> errors;                            ///< rule load/evaluation errors seen
};

/// Plays `ticks` ticks (or until the timeline ends when ticks <= 0).
inline Played play(const sim::Scenario& scenario, int ticks = 0,
                   sim::SimulatorOptions options = {}) {
  Played out;
  auto simulator = sim::Simulator::create(scenario, options);
  if (!simulator) {
    out.errors.push_back(simulator.error().message);
    return out;
  }
  RuleSetLoad rules = load_rule_set({}, true);
  out.errors = rules.errors;
  Monitor monitor(sim::simulator_provider(**simulator), std::move(rules.groups));
  for (int i = 0; ticks <= 0 || i < ticks; ++i) {
    auto report = monitor.step();
    if (!report) break;
    for (const auto& e : report->rule_errors) out.errors.push_back(e);
    out.reports.push_back(report);
    out.phases.push_back((*simulator)->phase());
  }
  return out;
}

/// A scenario played with the PFC fast path polling every `fast_interval_s` of simulated time:
/// every PublishedTick it published, fast republishes included, with the simulated time (unix ms)
/// of its publication.
struct PlayedFast {
  std::vector<std::pair<std::int64_t, std::shared_ptr<const PublishedTick>>> published;
  std::int64_t start_ms = 0;  ///< simulated wall time at the timeline's start
  std::vector<std::string> errors;
};

/// Stops after the tick that reaches `until_s` of simulated time (<= 0: the whole timeline).
inline PlayedFast play_fast(const sim::Scenario& scenario, double fast_interval_s = 0.1,
                            double until_s = 0) {
  PlayedFast out;
  auto simulator = sim::Simulator::create(scenario);
  if (!simulator) {
    out.errors.push_back(simulator.error().message);
    return out;
  }
  sim::Simulator& sim = **simulator;
  out.start_ms = unix_ms(sim.wall_now());
  RuleSetLoad rules = load_rule_set({}, true);
  out.errors = rules.errors;
  Monitor* monitor_ptr = nullptr;
  auto hook = [&](std::int64_t t_us) {
    if (monitor_ptr != nullptr && monitor_ptr->fast_poll(t_us)) {
      out.published.emplace_back(t_us / 1000, monitor_ptr->latest());
    }
  };
  Monitor monitor(sim::simulator_provider(sim, {}, hook, fast_interval_s), std::move(rules.groups));
  FastPathOptions fast;
  fast.interval_s = fast_interval_s;
  monitor.enable_fast_path(sim::make_simulated_live_ethtool_source(sim.host()), fast);
  monitor_ptr = &monitor;
  while (auto report = monitor.step()) {
    out.published.emplace_back(unix_ms(report->snapshot.wall), report);
    if (until_s > 0 && sim.elapsed_s() >= until_s) break;
  }
  return out;
}

/// Findings of `report` whose state is firing and whose labels match; without a port, any
/// finding of the device (device-level alerts such as the firmware ones have no port label);
/// with a pid, only the findings about that process (the memlock ones have no device label).
inline bool has_firing(const PublishedTick& report, const std::string& alert,
                       const std::string& device, std::optional<std::uint32_t> port,
                       const std::string& priority = "",
                       std::optional<std::uint32_t> pid = std::nullopt) {
  for (const Finding& f : report.findings) {
    if (f.state != FindingState::firing || f.rule != alert) continue;
    if (label_value(f.labels, "device") != device) continue;
    if (pid && label_value(f.labels, "pid") != std::to_string(*pid)) continue;
    if (port && label_value(f.labels, "port") != std::to_string(*port)) continue;
    if (!priority.empty() && label_value(f.labels, "priority") != priority) continue;
    return true;
  }
  return false;
}

/// The first tick (1-based) at which a probe alert fires for `target`, or 0 if it never does.
inline std::size_t first_firing_tick_for_target(const Played& played, const std::string& alert,
                                                const std::string& target) {
  for (std::size_t i = 0; i < played.reports.size(); ++i) {
    for (const Finding& f : played.reports[i]->findings) {
      if (f.state == FindingState::firing && f.rule == alert &&
          label_value(f.labels, "target") == target)
        return i + 1;
    }
  }
  return 0;
}

/// The first tick (1-based) at which the finding fires, or 0 if it never does.
inline std::size_t first_firing_tick(const Played& played, const std::string& alert,
                                     const std::string& device, std::optional<std::uint32_t> port,
                                     const std::string& priority = "",
                                     std::optional<std::uint32_t> pid = std::nullopt) {
  for (std::size_t i = 0; i < played.reports.size(); ++i) {
    if (has_firing(*played.reports[i], alert, device, port, priority, pid)) return i + 1;
  }
  return 0;
}

}  // namespace rdmatop::test
