// Unit tests for rules in the `promtool test rules` file format (rule_files,
// evaluation_interval, tests: input_series / alert_rule_test / promql_expr_test), run against
// rdmatop's engine and reported the way promtool reports them, so one file checks both.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "collector/model/result.h"
#include "rules/promql/value.h"

namespace rdmatop {

/// Reads a file named in a test (rule_files are relative to the test file's directory).
using FileReader = std::function<Result<std::string>(const std::string& path)>;

struct RuleTestOutcome {
  bool passed = false;
  std::string report;  ///< promtool-style text: "Unit Testing:  f.yaml\n  SUCCESS\n"
};

/// Runs every test group of the test file at `path`.
RuleTestOutcome run_rule_test_file(const std::string& path, const FileReader& read);

/// Same, for a test file already in memory (`dir` is where its rule_files are looked up).
RuleTestOutcome run_rule_test_text(const std::string& text, const std::string& display_name,
                                   const std::string& dir, const FileReader& read);

/// promtool's expanding notation: "1 2 _ 3 stale", "0+10x3" (0 10 20 30), "10-1x2",
/// "1x3" (four 1s), "_x2" (two omitted). nullopt marks an omitted sample; a staleness marker
/// is promql::stale_nan().
Result<std::vector<std::optional<double>>> expand_series_values(const std::string& text);

}  // namespace rdmatop
