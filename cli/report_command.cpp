// `rdmatop report`: two snapshots --interval apart, diagnosed by the rules, printed as text or
// JSON.
#include <chrono>
#include <iostream>
#include <memory>
#include <thread>

#include "cli/commands.h"
#include "cli/common_options.h"
#include "exporters/report/report_render.h"
#include "rules/diagnoser.h"
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

promql::Timestamp unix_ms(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

int run_report(const ReportOptions& options) {
  RuleSetLoad rules = load_rule_set(options.rule_files, !options.no_builtin_rules);
  // A broken rule file is reported and skipped; the report itself still runs.
  for (const auto& e : rules.errors) std::cerr << "rdmatop report: rules: " << e << "\n";
  Diagnoser diagnoser(std::move(rules.groups));
  std::vector<std::string> rule_errors = std::move(rules.errors);
  auto diagnose = [&](const Observation& o) {
    for (auto& e : diagnoser.observe(o.series, unix_ms(o.snapshot.wall))) {
      rule_errors.push_back(std::move(e));
    }
  };

  const HostSources sources(options.sources);
  const CollectContext ctx = sources.context();
  Report report;
  if (options.interval_seconds > 0) {
    const Observation first = make_observation(collect_snapshot(ctx, 1));
    diagnose(first);
    std::this_thread::sleep_for(std::chrono::duration<double>(options.interval_seconds));
    Observation last = make_observation(collect_snapshot(ctx, 2));
    diagnose(last);
    report = build_report(&first, std::move(last), diagnoser.findings(), std::move(rule_errors));
  } else {
    Observation only = make_observation(collect_snapshot(ctx, 1));
    diagnose(only);
    report = build_report(nullptr, std::move(only), diagnoser.findings(), std::move(rule_errors));
  }
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
