// `rdmatop report`: two snapshots --interval apart, diagnosed by the rules, printed as text or
// JSON. With --from, the snapshots of a recording instead (docs/recording.md).
#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <thread>

#include "cli/commands.h"
#include "cli/common_options.h"
#include "collector/capture/capture_reader.h"
#include "exporters/report/report_render.h"
#include "pipeline/fast_loop.h"
#include "pipeline/monitor.h"
#include "recording/recording_provider.h"

namespace rdmatop {

namespace {

struct ReportOptions {
  SourceOptions sources;
  double interval_seconds = 5.0;
  bool json = false;
  RuleOptions rules;
  std::vector<std::string> from;     ///< a recording (its rotated files) instead of the live host
  std::string at;                    ///< --at TIME: the last snapshot fed
  std::string window;                ///< --window FROM..TO
  std::string demo;                  ///< --demo SCENARIO: the simulated host instead of this one
  std::vector<std::string> capture;  ///< --capture PATH: pasted command output (docs/capture.md)
  double capture_interval_seconds = 0;  ///< --capture-interval: seconds between the captures
  double fast_interval_seconds = FastPathOptions{}.interval_s;
};

/// `--from FILE`: every recorded snapshot up to --at (or within --window) goes through the
/// Monitor as it did live, so `for:` durations and rates match; the last one is reported.
/// Damage in the file is reported on stderr and the snapshots before it are still used.
int run_report_from(const ReportOptions& options, RuleSetLoad rules) {
  RecordingWindow window;
  if (!options.window.empty()) {
    auto parsed = parse_recording_window(options.window);
    if (!parsed) {
      std::cerr << "rdmatop report: --window " << parsed.error().message << "\n";
      return static_cast<int>(ReportExit::usage);
    }
    window = *parsed;
  }
  if (!options.at.empty()) {
    auto parsed = parse_recording_time(options.at);
    if (!parsed) {
      std::cerr << "rdmatop report: --at " << parsed.error().message << "\n";
      return static_cast<int>(ReportExit::usage);
    }
    window.to = *parsed;
  }
  auto opened = RecordingSet::open(options.from);
  if (!opened) {
    std::cerr << "rdmatop report: " << opened.error().message << "\n";
    return static_cast<int>(ReportExit::no_data);
  }
  const std::shared_ptr<RecordingSet> recording = std::move(opened).value();
  Monitor monitor(recording_provider(recording, window), std::move(rules.groups),
                  std::move(rules.errors));
  while (monitor.step() != nullptr) {
  }
  if (recording->error()) {
    std::cerr << "rdmatop report: " << recording->error()->message << " (reporting on the "
              << monitor.ticks() << " snapshots used before it)\n";
  }
  const auto report = monitor.latest();
  if (report == nullptr) {
    std::cerr << "rdmatop report: " << recording->files().back() << ": no snapshot"
              << (options.at.empty() && options.window.empty() ? "" : " in the requested time")
              << "\n";
    return static_cast<int>(ReportExit::no_data);
  }
  std::cout << (options.json ? render_report_json(*report) : render_report_text(*report));
  std::cout.flush();
  return static_cast<int>(report_exit_code(*report));
}

/// `--demo SCENARIO`: the simulated host's first two ticks, --interval of simulated time apart
/// (the first tick ends one interval in), with the fast path polling in between on simulated
/// time, as it would on a host during the interval.
int run_report_demo(const ReportOptions& options, RuleSetLoad rules) {
  auto scenario = sim::load_scenario(options.demo);
  if (!scenario) {
    std::cerr << "rdmatop report: " << scenario.error().message << "\n";
    return static_cast<int>(ReportExit::usage);
  }
  sim::SimulatorOptions sim_options;
  if (options.interval_seconds > 0) sim_options.interval_s = options.interval_seconds;
  auto simulator = sim::Simulator::create(std::move(*scenario), sim_options);
  if (!simulator) {
    std::cerr << "rdmatop report: " << simulator.error().message << "\n";
    return static_cast<int>(ReportExit::usage);
  }
  SimulatedFastPath fast(**simulator, options.fast_interval_seconds);
  Monitor monitor(fast.provider(), std::move(rules.groups), std::move(rules.errors));
  fast.attach(monitor);
  monitor.step();
  if (options.interval_seconds > 0) monitor.step();
  const auto report = monitor.latest();
  if (report == nullptr) return static_cast<int>(ReportExit::no_data);
  std::cout << (options.json ? render_report_json(*report) : render_report_text(*report));
  std::cout.flush();
  return static_cast<int>(report_exit_code(*report));
}

/// The seconds between consecutive captures: --capture-interval, else the `date` lines when
/// every capture has one and they increase, else none (0: lifetime evidence only).
std::vector<double> capture_offsets(const capture::CaptureSet& set, double interval) {
  std::vector<double> offsets(set.captures.size(), 0.0);
  if (set.captures.size() < 2) return offsets;
  if (interval > 0) {
    for (std::size_t i = 0; i < offsets.size(); ++i) offsets[i] = interval * static_cast<double>(i);
    return offsets;
  }
  for (std::size_t i = 0; i < set.times.size(); ++i) {
    if (!set.times[i] || (i > 0 && *set.times[i] <= *set.times[i - 1])) {
      return std::vector<double>(set.captures.size(), 0.0);
    }
    offsets[i] = std::chrono::duration<double>(*set.times[i] - *set.times.front()).count();
  }
  return offsets;
}

/// `--capture PATH...`: the pasted outputs read into the captures of one host
/// (collector/capture/capture_host.h). With an interval between them (--capture-interval or
/// `date` lines), the captures go through one Monitor as ticks that far apart, so the report
/// has rates; without one, each capture is diagnosed on its own (lifetime evidence only, as
/// `--interval 0`) and the report is the last capture's, with the findings only an earlier
/// capture had appended and annotated with the capture that had them.
int run_report_capture(const ReportOptions& options) {
  const capture::CaptureSet set = capture::assemble(capture::read_capture_inputs(options.capture));
  const DeviceFilter filter{options.sources.devices, options.sources.exclude_devices};
  const auto snapshot_of = [&](std::size_t i) {
    static const capture::Facts none;
    return capture::build_snapshot(set.captures.empty() ? none : set.captures[i], set.files,
                                   set.host, i + 1, filter);
  };
  const std::size_t count = std::max<std::size_t>(set.captures.size(), 1);
  const std::vector<double> offsets = capture_offsets(set, options.capture_interval_seconds);
  const bool timed = count > 1 && offsets.back() > 0;
  std::shared_ptr<const PublishedTick> report;
  if (timed) {
    const auto base_taken = std::chrono::steady_clock::now();
    const auto base_wall = set.times.front().value_or(std::chrono::system_clock::now());
    std::size_t next = 0;
    RuleSetLoad rules = load_rules(options.rules, "rdmatop report");
    Monitor monitor(
        [&](std::uint64_t) -> std::optional<Snapshot> {
          if (next >= count) return std::nullopt;
          Snapshot snap = snapshot_of(next);
          const auto offset = std::chrono::duration_cast<std::chrono::nanoseconds>(
              std::chrono::duration<double>(offsets[next]));
          snap.taken = base_taken + offset;
          snap.wall = set.times[next].value_or(
              base_wall + std::chrono::duration_cast<std::chrono::system_clock::duration>(offset));
          ++next;
          return snap;
        },
        std::move(rules.groups), std::move(rules.errors));
    while (monitor.step() != nullptr) {
    }
    report = monitor.latest();
  } else {
    std::vector<Finding> earlier;
    for (std::size_t i = 0; i < count; ++i) {
      RuleSetLoad rules = load_rules(options.rules, "rdmatop report");
      bool given = false;
      Monitor monitor(
          [&](std::uint64_t) -> std::optional<Snapshot> {
            if (given) return std::nullopt;
            given = true;
            Snapshot snap = snapshot_of(i);
            if (i < set.times.size() && set.times[i]) snap.wall = *set.times[i];
            return snap;
          },
          std::move(rules.groups), std::move(rules.errors));
      monitor.step();
      report = monitor.latest();
      if (i + 1 == count) break;
      for (Finding f : report->findings) {
        if (f.state == FindingState::resolved) continue;
        f.annotations.emplace_back(
            "capture", "capture " + std::to_string(i + 1) + " of " + std::to_string(count) +
                           " (an earlier one; the last has no such finding)");
        earlier.push_back(std::move(f));
      }
    }
    if (!earlier.empty()) {
      PublishedTick merged = *report;
      for (Finding& f : earlier) {
        const bool known =
            std::any_of(merged.findings.begin(), merged.findings.end(),
                        [&](const Finding& g) { return g.rule == f.rule && g.labels == f.labels; });
        if (!known) merged.findings.push_back(std::move(f));
      }
      report = std::make_shared<const PublishedTick>(std::move(merged));
    }
  }
  std::cout << (options.json ? render_report_json(*report) : render_report_text(*report));
  std::cout.flush();
  return static_cast<int>(report_exit_code(*report));
}

int run_report(const ReportOptions& options) {
  if (!options.capture.empty()) return run_report_capture(options);
  RuleSetLoad rules = load_rules(options.rules, "rdmatop report");
  if (!options.from.empty()) return run_report_from(options, std::move(rules));
  if (!options.demo.empty()) return run_report_demo(options, std::move(rules));
  const HostSources sources(options.sources);
  const CollectContext ctx = sources.context();
  Monitor monitor(live_provider(ctx), std::move(rules.groups), std::move(rules.errors));
  enable_host_fast_path(monitor, options.sources,
                        options.interval_seconds > 0 ? options.fast_interval_seconds : 0);
  monitor.step();
  if (options.interval_seconds > 0) {
    {
      // The fast path polls the pause counters during the interval: a storm or deadlock that is
      // on now shows as its per-priority finding, which the 1-minute rules cannot in 5 s.
      const FastLoop fast_loop(monitor);
      std::this_thread::sleep_for(std::chrono::duration<double>(options.interval_seconds));
    }
    monitor.step();
  }
  const PublishedTick& report = *monitor.latest();
  std::cout << (options.json ? render_report_json(report) : render_report_text(report));
  std::cout.flush();
  return static_cast<int>(report_exit_code(report));
}

}  // namespace

void register_report_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<ReportOptions>();
  CLI::App* cmd = app.add_subcommand(
      "report", "One-shot diagnostic report: findings, inventory and per-port counter rates");
  add_source_options(*cmd, options->sources);
  CLI::Option* interval =
      cmd->add_option("--interval", options->interval_seconds,
                      "Seconds between the two snapshots rates are computed from (0: one snapshot)")
          ->capture_default_str()
          ->check(CLI::Range(0.0, 3600.0));
  cmd->add_flag("--json", options->json, "Print the versioned JSON document instead of text");
  add_rule_options(*cmd, options->rules);
  add_fast_path_option(*cmd, options->fast_interval_seconds);
  cmd->add_option("--demo", options->demo,
                  "Report on the fabric simulator playing SCENARIO (see `rdmatop demo --list`) "
                  "instead of this host: its first two ticks, --interval apart");
  CLI::Option* from =
      cmd->add_option("--from", options->from,
                      "Diagnose a recording (rdmatop record) instead of this host: one file, or "
                      "all files of a rotated recording in any order (--from rec.jsonl*)")
          ->excludes(interval);
  CLI::Option* capture =
      cmd->add_option("--capture", options->capture,
                      "Diagnose pasted command output instead of this host: a file, a directory "
                      "(read recursively) or a .tar.gz; repeatable, in time order "
                      "(docs/capture.md)")
          ->excludes(interval)
          ->excludes(from);
  cmd->add_option("--capture-interval", options->capture_interval_seconds,
                  "With --capture: seconds between consecutive captures of the host, for rates "
                  "(default: the `date` lines in the files; without either, lifetime evidence "
                  "only)")
      ->needs(capture)
      ->check(CLI::Range(0.0, 86400.0));
  CLI::Option* at = cmd->add_option("--at", options->at,
                                    "With --from: report as of TIME (RFC3339, or +90s from the "
                                    "recording start)")
                        ->needs(from);
  cmd->add_option("--window", options->window,
                  "With --from: only the snapshots in FROM..TO (either side may be empty)")
      ->needs(from)
      ->excludes(at);
  cmd->callback([options, &exit_code] { exit_code = run_report(*options); });
}

}  // namespace rdmatop
