// `rdmatop report`: two snapshots --interval apart, diagnosed by the rules, printed as text or
// JSON.
#include <chrono>
#include <iostream>
#include <memory>
#include <thread>

#include "cli/commands.h"
#include "cli/common_options.h"
#include "exporters/monitor/monitor.h"
#include "exporters/report/report_render.h"
#include "rules/rule_set.h"

namespace rdmatop {

namespace {

struct ReportOptions {
  SourceOptions sources;
  double interval_seconds = 5.0;
  bool json = false;
  std::vector<std::string> rule_files;
  bool no_builtin_rules = false;
};

int run_report(const ReportOptions& options) {
  RuleSetLoad rules = load_rule_set(options.rule_files, !options.no_builtin_rules);
  // A broken rule file is reported and skipped; the report itself still runs.
  for (const auto& e : rules.errors) std::cerr << "rdmatop report: rules: " << e << "\n";
  const HostSources sources(options.sources);
  const CollectContext ctx = sources.context();
  Monitor monitor(live_provider(ctx), std::move(rules.groups), std::move(rules.errors));
  monitor.step();
  if (options.interval_seconds > 0) {
    std::this_thread::sleep_for(std::chrono::duration<double>(options.interval_seconds));
    monitor.step();
  }
  const Report& report = *monitor.latest();
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
  cmd->add_option("--interval", options->interval_seconds,
                  "Seconds between the two snapshots rates are computed from (0: one snapshot)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 3600.0));
  cmd->add_flag("--json", options->json, "Print the versioned JSON document instead of text");
  cmd->add_option("--rules", options->rule_files,
                  "Extra Prometheus rule files (repeatable); a rule named like a built-in one "
                  "replaces it");
  cmd->add_flag("--no-builtin-rules", options->no_builtin_rules,
                "Leave out the built-in RoCE diagnosis pack");
  cmd->callback([options, &exit_code] { exit_code = run_report(*options); });
}

}  // namespace rdmatop
