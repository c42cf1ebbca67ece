// The rules in force: the built-in pack plus the user's --rules files. Every surface (report,
// rules list/export, exporter, TUI) loads them through here, so overriding works the same way
// everywhere.
#pragma once

#include <string>
#include <vector>

#include "collector/model/result.h"
#include "rules/rule_file.h"

namespace rdmatop {

struct RuleSetLoad {
  std::vector<RuleGroup> groups;
  std::vector<std::string> errors;  ///< "file:line:col: message" per problem; empty when clean
};

/// Loads the built-in pack (unless `include_builtin` is false), then each user file. A user
/// rule whose name matches a built-in rule replaces it (the built-in one is dropped); a user
/// file that fails to load is reported in `errors` and skipped, and the others still load.
RuleSetLoad load_rule_set(const std::vector<std::string>& user_files, bool include_builtin);

/// Reads a rule or rule-test file named by the user (configuration, not kernel state).
Result<std::string> read_text_file(const std::string& path);

}  // namespace rdmatop
