// The rules in force: the built-in pack plus the user's --rules files. Every surface (report,
// rules list/export, exporter, TUI) loads them through here, so overriding works the same way
// everywhere.
#pragma once

#include <cstddef>
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

/// The largest configuration file read_text_file accepts. The built-in pack is under 100 KiB
/// and a web config or scenario a few KiB; 16 MiB leaves generous room while bounding memory.
inline constexpr std::size_t kMaxTextFileBytes = 16 * 1024 * 1024;

/// Reads a configuration file named by the user (rule and rule-test files, web config,
/// scenario files, secrets): never blocks on a FIFO or device, refuses more than
/// kMaxTextFileBytes (see read_bounded_file).
Result<std::string> read_text_file(const std::string& path);

}  // namespace rdmatop
