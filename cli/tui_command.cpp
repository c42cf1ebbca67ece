// `rdmatop` with no subcommand: the interactive terminal UI on live data (batch mode when stdout
// is not a terminal or with -n/--batch). The flags live on the top-level app.
#include <unistd.h>

#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/common_options.h"
#include "pipeline/fast_loop.h"
#include "pipeline/monitor.h"
#include "pipeline/tick.h"
#include "tui/tui.h"

namespace rdmatop {

namespace {

struct TopOptions {
  SourceOptions sources;
  double interval_seconds = 1.0;
  std::optional<int> frames;
  bool batch = false;
  RuleOptions rules;
  std::vector<std::string> from;  ///< replay this recording (its files) instead of the live host
  ProbeWiringOptions probes;
  double fast_interval_seconds = FastPathOptions{}.interval_s;
};

int run_default(const TopOptions& options) {
  RuleSetLoad rules = load_rules(options.rules, "rdmatop");
  const HostSources sources(options.sources);
  const CollectContext ctx = sources.context();
  TuiOptions tui;
  auto probed = with_probe_options(live_provider(ctx), options.probes, "rdmatop");
  if (!probed) {
    std::cerr << "rdmatop: " << probed.error().message << "\n";
    return static_cast<int>(ReportExit::usage);
  }
  SnapshotProvider provider = std::move(probed).value();
  if (!options.from.empty()) {
    auto replay = open_replay(options.from);
    if (!replay) {
      std::cerr << "rdmatop: " << replay.error().message << "\n";
      return static_cast<int>(ReportExit::no_data);
    }
    provider = std::move(replay).value();
    tui.replay = true;
  }
  Monitor monitor(std::move(provider), std::move(rules.groups), std::move(rules.errors));
  if (options.from.empty()) {
    enable_host_fast_path(monitor, options.sources, options.fast_interval_seconds);
  }
  const FastLoop fast_loop(monitor);
  tui.interval_seconds = options.interval_seconds;
  tui.source_label = !options.from.empty() ? "replay: " + replay_label(options.from)
                     : options.sources.sysfs_root == "/sys" ? "live"
                                                            : options.sources.sysfs_root;
  if (options.frames || options.batch || ::isatty(STDOUT_FILENO) != 1) {
    tui.batch_frames = options.frames.value_or(1);
  }
  return run_tui(monitor, tui);
}

}  // namespace

std::function<int()> register_tui_options(CLI::App& app) {
  auto options = std::make_shared<TopOptions>();
  add_source_options(app, options->sources);
  app.add_option("--interval", options->interval_seconds,
                 "Seconds between refreshes of the terminal UI (+/- change it at run time)")
      ->capture_default_str()
      ->check(CLI::Range(0.1, 3600.0));
  app.add_option("-n,--frames", options->frames,
                 "Batch mode: print N frames as plain text, --interval apart, then exit")
      ->check(CLI::Range(1, 1000000));
  app.add_flag("--batch", options->batch,
               "Batch mode without a terminal (1 frame unless -n); also the default when stdout "
               "is not a terminal");
  add_rule_options(app, options->rules);
  add_fast_path_option(app, options->fast_interval_seconds);
  add_probe_options(app, options->probes);
  app.add_option("--from", options->from,
                 "Replay a recording (rdmatop record) instead of this host, one snapshot per "
                 "--interval: one file, or all files of a rotated recording (--from rec.jsonl*)");
  return [options] { return run_default(*options); };
}

}  // namespace rdmatop
