// The rules engine: evaluates rule groups over History at a given time, writes recording-rule
// results back into History, and keeps each alert's state (pending -> firing -> resolved,
// with `for` and `keep_firing_for`) exactly as Prometheus's AlertingRule.Eval does
// (prometheus/rules/alerting.go). It is a pure function of (history, time): no clock, no I/O.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "rules/alert_templates.h"
#include "rules/finding.h"
#include "rules/history.h"
#include "rules/promql/evaluator.h"
#include "rules/rule_file.h"
#include "rules/template.h"

namespace rdmatop {

struct RuleEvalError {
  std::string group;
  std::string rule;
  std::string message;
};

struct EngineOptions {
  /// Interval of groups that set none, and the default subquery step.
  promql::Timestamp default_interval_ms = kDefaultGroupIntervalMs;
  /// When true a group is evaluated only when its interval has elapsed since its last run;
  /// promtool's test runner evaluates every group at every step (false).
  bool respect_group_intervals = true;
  /// Evidence series kept per finding.
  std::size_t max_evidence = 8;
  /// Sample budget of one rule evaluation (promql::EvalOptions::max_samples).
  std::uint64_t max_samples = promql::kDefaultMaxSamples;
  /// Write each alert rule's pending and firing alerts back as the series ALERTS{alertstate}
  /// (value 1) and ALERTS_FOR_STATE (value: the alert's active-since time in seconds), as
  /// Prometheus's AlertingRule.Eval does (rules/alerting.go); `rules test` turns it on.
  bool write_alert_series = false;
  /// `$externalLabels` / `$externalURL` of label and annotation templates.
  TemplateExternals externals;
};

class RuleEngine {
 public:
  explicit RuleEngine(std::vector<RuleGroup> groups, EngineOptions options = {});

  /// Evaluates the groups due at `ts` (ms), in file order and rule order; recording rules are
  /// visible to the rules after them. Returns run-time errors (the other rules still run).
  std::vector<RuleEvalError> evaluate(History& history, promql::Timestamp ts);

  /// Pending, firing and recently resolved alerts, sorted by rule then labels.
  std::vector<Finding> findings() const;
  /// The same, as pointers into the engine, valid until the next evaluate(): for a caller that
  /// orders them again before it copies them (thousands of findings, each with its labels and
  /// annotations, on a host in trouble).
  std::vector<const Finding*> finding_refs() const;

  const std::vector<RuleGroup>& groups() const { return groups_; }

  /// How much History the loaded rules need (longest range + lookback + one interval).
  promql::Timestamp required_retention_ms() const;

 private:
  struct ActiveAlert {
    Finding finding;
    promql::Timestamp keep_firing_since = 0;  ///< 0: the expression is still true
  };
  void eval_alert(const RuleGroup& group, const Rule& rule, const promql::Vector& result,
                  History& history, promql::Timestamp ts, std::vector<RuleEvalError>& errors);
  std::vector<promql::Vector> evidence_inputs(const Rule& rule, const History& history,
                                              promql::Timestamp ts) const;

  std::vector<RuleGroup> groups_;
  EngineOptions options_;
  std::map<std::string, promql::Timestamp> last_group_eval_;
  /// Per alert rule ("group/rule"): active alerts keyed by their label set.
  std::map<std::string, std::map<std::string, ActiveAlert>> active_;
  /// Per alert rule (keyed as active_): its alerts' expanded templates.
  std::map<std::string, AlertTemplates> templates_;
  /// Rules ("group key\nrule") disabled for exceeding the sample budget -> the error.
  std::map<std::string, std::string> disabled_;
};

}  // namespace rdmatop
