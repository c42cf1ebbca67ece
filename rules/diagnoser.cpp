#include "rules/diagnoser.h"

#include <algorithm>

namespace rdmatop {

namespace {

EngineOptions host_options() {
  EngineOptions options;
  options.respect_group_intervals = false;
  return options;
}

/// Keeps the rules for which `keep(rule)` holds, group by group; empty groups are dropped.
template <class Keep>
std::vector<RuleGroup> filter_rules(const std::vector<RuleGroup>& groups, Keep keep) {
  std::vector<RuleGroup> out;
  for (const RuleGroup& group : groups) {
    RuleGroup kept = group;
    kept.rules.clear();
    for (const Rule& rule : group.rules) {
      if (keep(rule)) kept.rules.push_back(rule);
    }
    if (!kept.rules.empty()) out.push_back(std::move(kept));
  }
  return out;
}

promql::Timestamp retention_for(const RuleEngine& a, const RuleEngine& b) {
  return std::max(a.required_retention_ms(), b.required_retention_ms());
}

/// Appends the engine's findings, active before resolved, most severe first, then in the
/// engine's rule/label order: ordered as pointers, each finding copied once.
void append_most_severe_first(const RuleEngine& engine, std::vector<Finding>& out) {
  std::vector<const Finding*> findings = engine.finding_refs();
  std::stable_sort(findings.begin(), findings.end(), [](const Finding* a, const Finding* b) {
    const bool a_active = a->state != FindingState::resolved;
    const bool b_active = b->state != FindingState::resolved;
    if (a_active != b_active) return a_active;
    return a->severity > b->severity;
  });
  out.reserve(out.size() + findings.size());
  for (const Finding* f : findings) out.push_back(*f);
}

}  // namespace

bool is_lifetime_rule(const Rule& rule) {
  return has_lifetime_evidence(rule.labels);
}

std::vector<RuleGroup> without_lifetime_rules(std::vector<RuleGroup> groups) {
  return filter_rules(groups, [](const Rule& r) { return !is_lifetime_rule(r); });
}

Diagnoser::Diagnoser(std::vector<RuleGroup> groups)
    : engine_(filter_rules(groups, [](const Rule& r) { return !is_lifetime_rule(r); }),
              host_options()),
      lifetime_engine_(filter_rules(groups, is_lifetime_rule), host_options()),
      history_(retention_for(engine_, lifetime_engine_)) {}

std::vector<std::string> Diagnoser::observe(const std::vector<Series>& series,
                                            promql::Timestamp ts_ms) {
  // Without rules nothing reads the History (`rdmatop exporter --no-builtin-rules` and no
  // --rules): filing every series would be a tick's work for no reader.
  if (engine_.groups().empty() && lifetime_engine_.groups().empty()) {
    observed_ = true;
    return {};
  }
  history_.ingest(series, ts_ms);
  std::vector<std::string> errors;
  const auto note = [&errors](const std::vector<RuleEvalError>& found) {
    for (const auto& e : found) errors.push_back(e.group + "/" + e.rule + ": " + e.message);
  };
  if (!observed_) note(lifetime_engine_.evaluate(history_, ts_ms));
  note(engine_.evaluate(history_, ts_ms));
  coverage_ = rule_coverage(engine_.groups(), lifetime_engine_.groups(), history_, ts_ms);
  observed_ = true;
  // No prune here: ingest pruned at this tick's time already, and a second pass read every
  // series' oldest point again (a cache miss per series, ~1 ms a tick at 8,100 series).
  return errors;
}

std::vector<Finding> Diagnoser::findings() const {
  std::vector<Finding> out;
  append_most_severe_first(engine_, out);
  append_most_severe_first(lifetime_engine_, out);
  return out;
}

Severity worst_active_severity(const std::vector<Finding>& findings) {
  Severity worst = Severity::none;
  for (const auto& f : findings) {
    if (f.state != FindingState::resolved && !is_lifetime(f)) worst = std::max(worst, f.severity);
  }
  return worst;
}

Severity worst_lifetime_severity(const std::vector<Finding>& findings) {
  Severity worst = Severity::none;
  for (const auto& f : findings) {
    if (is_lifetime(f)) worst = std::max(worst, f.severity);
  }
  return worst;
}

}  // namespace rdmatop
