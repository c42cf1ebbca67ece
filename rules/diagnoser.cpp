#include "rules/diagnoser.h"

#include <algorithm>

namespace rdmatop {

namespace {

EngineOptions host_options() {
  EngineOptions options;
  options.respect_group_intervals = false;
  return options;
}

}  // namespace

Diagnoser::Diagnoser(std::vector<RuleGroup> groups)
    : engine_(std::move(groups), host_options()), history_(engine_.required_retention_ms()) {}

std::vector<std::string> Diagnoser::observe(const std::vector<Series>& series,
                                            promql::Timestamp ts_ms) {
  history_.ingest(series, ts_ms);
  std::vector<std::string> errors;
  for (const auto& e : engine_.evaluate(history_, ts_ms)) {
    errors.push_back(e.group + "/" + e.rule + ": " + e.message);
  }
  history_.prune(ts_ms);
  return errors;
}

std::vector<Finding> Diagnoser::findings() const {
  std::vector<Finding> out = engine_.findings();
  // Most severe first; active before resolved; then the engine's rule/label order.
  std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
    const bool a_active = a.state != FindingState::resolved;
    const bool b_active = b.state != FindingState::resolved;
    if (a_active != b_active) return a_active;
    return a.severity > b.severity;
  });
  return out;
}

Severity worst_active_severity(const std::vector<Finding>& findings) {
  Severity worst = Severity::none;
  for (const auto& f : findings) {
    if (f.state != FindingState::resolved) worst = std::max(worst, f.severity);
  }
  return worst;
}

}  // namespace rdmatop
