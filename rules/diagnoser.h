// Turns a stream of ticks (canonical series at a time) into findings: History + RuleEngine
// wired together once, for every surface (report, replay, exporter, TUI).
#pragma once

#include <string>
#include <vector>

#include "collector/normalize/series.h"
#include "rules/engine.h"
#include "rules/finding.h"
#include "rules/history.h"

namespace rdmatop {

class Diagnoser {
 public:
  /// Every group runs at every tick: a host tool ticks at its own --interval, and the rules'
  /// ranges and `for` durations, not group intervals, set the timescale.
  explicit Diagnoser(std::vector<RuleGroup> groups);

  /// Ingests one tick's series at `ts_ms` (unix milliseconds) and evaluates every rule.
  /// Returns run-time evaluation errors as "group/rule: message" (other rules still run).
  std::vector<std::string> observe(const std::vector<Series>& series, promql::Timestamp ts_ms);

  /// Pending, firing and recently resolved findings, most severe first.
  std::vector<Finding> findings() const;

 private:
  RuleEngine engine_;
  History history_;
};

/// Worst severity among pending and firing findings (resolved ones do not count).
Severity worst_active_severity(const std::vector<Finding>& findings);

}  // namespace rdmatop
