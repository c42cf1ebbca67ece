// Prometheus rule files (rulefmt): `groups: [{name, interval, rules: [{alert|record, expr, for,
// keep_firing_for, labels, annotations}]}]`. Loading is strict like `promtool check rules`:
// unknown keys, bad durations, bad PromQL and bad templates are errors with file:line:column.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "collector/normalize/series.h"
#include "rules/promql/ast.h"

namespace rdmatop {

struct Rule {
  std::string name;  ///< the alert name, or the recorded metric name
  bool is_alert = true;
  std::string expr_text;
  std::shared_ptr<const promql::Expr> expr;
  promql::Timestamp for_ms = 0;
  promql::Timestamp keep_firing_for_ms = 0;
  Labels labels;  ///< sorted; values may be templates
  std::vector<std::pair<std::string, std::string>> annotations;  ///< sorted by name; templates
  std::string file;
  int line = 0;  ///< 1-based line of the rule in its file
};

/// The interval of a group that sets none (Prometheus's global evaluation_interval default).
inline constexpr promql::Timestamp kDefaultGroupIntervalMs = 60 * 1000;

struct RuleGroup {
  std::string name;
  promql::Timestamp interval_ms = 0;  ///< 0: the engine's default interval
  std::vector<Rule> rules;
  std::string file;
};

/// A load error located in its file (1-based line and column; 0 when unknown).
struct RuleFileError {
  std::string file;
  int line = 0;
  int column = 0;
  std::string message;  ///< what was wrong and what was expected
};

std::string to_string(const RuleFileError& e);

struct RuleFileLoad {
  std::vector<RuleGroup> groups;
  std::vector<RuleFileError> errors;  ///< empty when the file loaded cleanly
};

/// Parses one rule file's text. On any error the groups that did validate are still returned,
/// so a caller can choose to use them; `rules check` reports every error.
RuleFileLoad parse_rule_file(const std::string& text, const std::string& file_name);

/// Serialises groups back to a Prometheus rule file (what `rules export` writes).
std::string to_yaml(const std::vector<RuleGroup>& groups);

}  // namespace rdmatop
