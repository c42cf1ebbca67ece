// A Finding is what a firing (or pending, or recently resolved) alert rule tells the user:
// which rule, how bad, where (labels), since when, the value, the evidence and what to do.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "collector/normalize/series.h"
#include "rules/promql/value.h"

namespace rdmatop {

enum class Severity : std::uint8_t { none, info, warning, critical };

/// pending: the expression is true but not yet for `for`; firing; resolved: it stopped being
/// true (kept for 15 minutes, as Prometheus keeps resolved alerts).
enum class FindingState : std::uint8_t { pending, firing, resolved };

/// One input series behind a finding, with its value at evaluation time.
struct Evidence {
  Labels labels;  ///< including `__name__`
  double value = 0;
};

struct Finding {
  std::string rule;   ///< alert name
  std::string group;  ///< rule group name
  Severity severity = Severity::none;
  Labels labels;  ///< alert labels: series labels + rule labels + alertname
  FindingState state = FindingState::pending;
  promql::Timestamp active_since = 0;  ///< ms: when the expression first became true
  promql::Timestamp fired_at = 0;      ///< ms; 0 while pending
  promql::Timestamp resolved_at = 0;   ///< ms; 0 unless resolved
  double value = 0;                    ///< the expression's value at the last evaluation
  std::vector<std::pair<std::string, std::string>> annotations;  ///< expanded templates
  std::vector<Evidence> evidence;
};

const char* to_string(Severity s);
const char* to_string(FindingState s);
/// The expanded annotation `name` ("summary", "description", "remediation"), or "".
std::string annotation(const Finding& finding, const std::string& name);
/// Where a finding points, from its labels: "mlx5_0/1 priority 3" ("host" when unlabelled).
/// `priority_word` lets narrow screens say "prio".
std::string finding_place(const Finding& finding, const std::string& priority_word = "priority");

/// "critical" -> critical; unknown or empty -> none.
Severity parse_severity(const std::string& s);

}  // namespace rdmatop
