// Turns a stream of ticks (canonical series at a time) into findings: History + RuleEngine
// wired together once, for every surface (report, replay, exporter, TUI).
//
// Two kinds of rule run here. Live rules (the default) are evaluated at every tick, over rates
// and `for` durations. Lifetime-evidence rules (label `evidence: lifetime`) read counter totals
// and are evaluated exactly once, on the first observation: a one-shot report or the first
// tick knows no rates, but a million out-of-sequence packets since boot are still evidence.
// Their findings stay as history; they never turn live, never resolve and never page.
#pragma once

#include <string>
#include <vector>

#include "collector/normalize/series.h"
#include "rules/coverage.h"
#include "rules/engine.h"
#include "rules/finding.h"
#include "rules/history.h"

namespace rdmatop {

class Diagnoser {
 public:
  /// Every group runs at every tick: a host tool ticks at its own --interval, and the rules'
  /// ranges and `for` durations, not group intervals, set the timescale.
  explicit Diagnoser(std::vector<RuleGroup> groups);

  /// Ingests one tick's series at `ts_ms` (unix milliseconds) and evaluates every live rule
  /// (and, on the first call, every lifetime rule). Returns run-time evaluation errors as
  /// "group/rule: message" (other rules still run).
  std::vector<std::string> observe(const std::vector<Series>& series, promql::Timestamp ts_ms);

  /// Pending, firing and recently resolved live findings, then the lifetime findings of the
  /// first observation; most severe first within each kind.
  std::vector<Finding> findings() const;

  /// For every alert rule, whether its inputs exist on this host at the last observation.
  const std::vector<RuleCoverage>& coverage() const { return coverage_; }

 private:
  RuleEngine engine_;
  RuleEngine lifetime_engine_;
  History history_;
  bool observed_ = false;
  std::vector<RuleCoverage> coverage_;
};

/// Worst severity among pending and firing live findings (resolved and lifetime ones do not
/// count: history is not an alarm).
Severity worst_active_severity(const std::vector<Finding>& findings);

/// Worst severity among lifetime findings.
Severity worst_lifetime_severity(const std::vector<Finding>& findings);

/// True when the rule carries `evidence: lifetime`.
bool is_lifetime_rule(const Rule& rule);

/// The groups without their lifetime rules (groups left empty are dropped): what Prometheus
/// gets from `rules export`, where a rule over totals would be a permanent alarm.
std::vector<RuleGroup> without_lifetime_rules(std::vector<RuleGroup> groups);

}  // namespace rdmatop
