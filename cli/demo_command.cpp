// `rdmatop demo`: the whole tool on a simulated host, no hardware and no root. The fabric
// simulator (simulator) plays a scenario into a temporary sysfs + ethtool tree; the
// real collectors, normalizer, rules and outputs run on it. On a terminal it shows the TUI;
// otherwise (or with --ticks) it plays in simulated time and prints text reports.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <memory>
#include <tuple>

#include "cli/commands.h"
#include "cli/common_options.h"
#include "exporters/report/report_render.h"
#include "pipeline/monitor.h"
#include "simulator/builtin_scenarios.h"
#include "simulator/simulator.h"
#include "tui/tui.h"

namespace rdmatop {

namespace {

constexpr const char* kDefaultScenario = "pfc-storm";

struct DemoOptions {
  std::string scenario = kDefaultScenario;
  bool list = false;
  std::optional<int> ticks;
  std::optional<double> interval_seconds;
  double speed = 5;
  int every = 0;
  bool json = false;
  bool no_tui = false;
  RuleOptions rules;
  double fast_interval_seconds = FastPathOptions{}.interval_s;
};

int list_scenarios() {
  const auto& all = sim::builtin_scenarios();
  for (const auto& e : all.errors) std::cerr << "rdmatop demo: built-in scenario: " << e << "\n";
  std::size_t width = 0;
  for (const auto& s : all.scenarios) width = std::max(width, s.name.size());
  for (const auto& s : all.scenarios) {
    std::cout << s.name << std::string(width - s.name.size() + 2, ' ') << s.description << "\n";
  }
  return 0;
}

/// Ranks a report by how bad it is: worst firing severity, then worst active (pending counts),
/// then the number of firing findings, then of all. Firing comes first so that the moment a
/// rule confirms beats the first tick it turned pending (same severity, same count).
std::tuple<Severity, Severity, std::size_t, std::size_t> badness(const PublishedTick& report) {
  Severity firing = Severity::none;
  std::size_t firing_count = 0;
  for (const auto& f : report.findings) {
    if (f.state != FindingState::firing) continue;
    firing = std::max(firing, f.severity);
    ++firing_count;
  }
  return {firing, worst_active_severity(report.findings), firing_count, report.findings.size()};
}

void print_report(const PublishedTick& report, const sim::Simulator& sim, std::uint64_t tick,
                  bool json) {
  if (json) {
    std::cout << render_report_json(report);
    return;
  }
  std::cout << "== demo " << sim.scenario().name << ": tick " << tick << ", simulated "
            << std::lround(static_cast<double>(tick) * sim.interval_s()) << " s ==\n"
            << render_report_text(report) << "\n";
}

/// Plays the timeline in simulated time (no sleeping) and prints reports: every --every
/// ticks, or else the worst moment (the storm) and the end.
int run_batch(Monitor& monitor, const sim::Simulator& sim, const DemoOptions& options,
              std::uint64_t max_ticks) {
  std::shared_ptr<const PublishedTick> worst;
  std::uint64_t worst_tick = 0;
  std::shared_ptr<const PublishedTick> last;
  std::uint64_t tick = 0;
  for (std::uint64_t i = 0; i < max_ticks; ++i) {
    auto report = monitor.step();
    if (!report) break;
    ++tick;
    last = report;
    if (options.every > 0) {
      if (tick % static_cast<std::uint64_t>(options.every) == 0) {
        print_report(*report, sim, tick, options.json);
      }
      continue;
    }
    if (!worst || badness(*report) > badness(*worst)) {
      worst = report;
      worst_tick = tick;
    }
  }
  if (!last) {
    std::cerr << "rdmatop demo: the simulator produced no snapshot\n";
    return static_cast<int>(ReportExit::usage);
  }
  if (options.every <= 0) {
    if (worst && worst != last && !options.json) print_report(*worst, sim, worst_tick, false);
    print_report(*last, sim, tick, options.json);
  }
  std::cout.flush();
  return 0;
}

int run_demo(const DemoOptions& options) {
  if (options.list) return list_scenarios();
  auto scenario = sim::load_scenario(options.scenario);
  if (!scenario) {
    std::cerr << "rdmatop demo: " << scenario.error().message << "\n";
    return static_cast<int>(ReportExit::usage);
  }
  const bool interactive = !options.no_tui && !options.json && ::isatty(STDOUT_FILENO) == 1;
  sim::SimulatorOptions sim_options;
  sim_options.interval_s = options.interval_seconds;
  // The TUI keeps playing: the timeline loops until the user quits.
  sim_options.loop = interactive && !options.ticks;
  auto simulator = sim::Simulator::create(std::move(*scenario), sim_options);
  if (!simulator) {
    std::cerr << "rdmatop demo: " << simulator.error().message << "\n";
    return static_cast<int>(ReportExit::usage);
  }
  sim::Simulator& sim = **simulator;
  RuleSetLoad rules = load_rules(options.rules, "rdmatop demo");
  SimulatedFastPath fast(sim, options.fast_interval_seconds);
  SnapshotProvider provider = fast.provider();
  if (options.ticks) {
    // Stop after N ticks even if the timeline (or the loop) would go on.
    provider = [inner = std::move(provider), limit = static_cast<std::uint64_t>(*options.ticks)](
                   std::uint64_t seq) -> std::optional<Snapshot> {
      if (seq > limit) return std::nullopt;
      return inner(seq);
    };
  }
  Monitor monitor(std::move(provider), std::move(rules.groups), std::move(rules.errors));
  fast.attach(monitor);
  if (interactive) {
    TuiOptions tui;
    tui.interval_seconds = sim.interval_s() / options.speed;
    tui.replay = true;
    tui.source_label = "demo: " + sim.scenario().name;
    return run_tui(monitor, tui);
  }
  // In 64 bits and from a double that may exceed them: a long scenario at a short interval
  // has more than 2^31 ticks (an int overflowed there).
  const double timeline = std::ceil(sim.scenario().duration_s() / sim.interval_s() - 1e-9);
  const std::uint64_t timeline_ticks = timeline >= 1.8e19
                                           ? std::numeric_limits<std::uint64_t>::max()
                                           : static_cast<std::uint64_t>(std::max(timeline, 0.0));
  return run_batch(monitor, sim, options,
                   options.ticks ? static_cast<std::uint64_t>(*options.ticks) : timeline_ticks);
}

}  // namespace

void register_demo_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<DemoOptions>();
  CLI::App* cmd = app.add_subcommand(
      "demo", "Run rdmatop on a simulated host playing a fault scenario (no hardware, no root)");
  cmd->add_option("scenario", options->scenario,
                  "Built-in scenario (see --list), a scenario file (*.yaml), or several joined "
                  "with commas to play one after the other")
      ->capture_default_str();
  cmd->add_flag("--list", options->list, "List the built-in scenarios and exit");
  cmd->add_option("--ticks", options->ticks,
                  "Stop after N ticks (default: the whole timeline; on a terminal: until quit)")
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--interval", options->interval_seconds,
                  "Simulated seconds per tick (default: the scenario's, usually 5)")
      ->check(CLI::Range(0.001, 3600.0));
  cmd->add_option("--speed", options->speed,
                  "Terminal UI: simulated time runs this many times faster than real time")
      ->capture_default_str()
      ->check(CLI::Range(0.01, 10000.0));
  cmd->add_option("--every", options->every,
                  "Without a terminal: print a report every N ticks (default: the worst moment "
                  "and the end)")
      ->check(CLI::Range(1, 1000000));
  cmd->add_flag("--json", options->json, "Print the final report as JSON (no terminal UI)");
  cmd->add_flag("--no-tui", options->no_tui, "Print text reports even on a terminal");
  add_rule_options(*cmd, options->rules);
  add_fast_path_option(*cmd, options->fast_interval_seconds);
  cmd->callback([options, &exit_code] { exit_code = run_demo(*options); });
}

}  // namespace rdmatop
