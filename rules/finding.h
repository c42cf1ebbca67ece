// A Finding is what a firing (or pending, or recently resolved) alert rule tells the user:
// which rule, how bad, where (labels), since when, the value, the evidence and what to do.
#pragma once

#include <cstdint>
#include <optional>
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
  /// For an input read over a range (`rate(x[5m])`, `increase(x[10m])`): what the samples
  /// really show, where Prometheus' `increase()` extrapolates to the window's edges ("rose by
  /// 1.5 in 5m" for a counter that went up by one). `observed_increase` is the sum of the
  /// rises between the samples in the window (a drop is a reset: the new value counts from 0),
  /// over `observed_span_ms` from the first to the last of them. Unset for instant inputs and
  /// for windows with fewer than two samples.
  std::optional<double> observed_increase;
  promql::Timestamp observed_span_ms = 0;
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

/// The rule label that marks lifetime evidence: `evidence: lifetime`. Such a rule reads counter
/// totals "since the counter started" (boot, driver load or last reset) and is evaluated once,
/// on the first observation of a host, never as a live alarm (docs/rules.md, "Lifetime
/// evidence").
inline constexpr const char* kEvidenceLabel = "evidence";
inline constexpr const char* kLifetimeEvidence = "lifetime";

/// True for a finding of a lifetime-evidence rule.
bool is_lifetime(const Finding& finding);
/// The same test on a label set: a finding's, or the rule's that makes it.
bool has_lifetime_evidence(const Labels& labels);
/// The state as every output names it: "pending", "firing", "resolved", or "lifetime" for
/// lifetime evidence (history read from totals, never a live state).
const char* state_name(const Finding& finding);

}  // namespace rdmatop
