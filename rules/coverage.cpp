#include "rules/coverage.h"

#include <algorithm>

namespace rdmatop {

namespace {

using promql::BinaryOp;
using promql::Expr;
using promql::ExprKind;

/// True when a series the selector matches has a live sample in its window: the newest sample
/// at or before `at` and within the lookback, and not a staleness marker (the series is gone).
bool live_at(const promql::StoredSeries& s, promql::Timestamp from, promql::Timestamp at) {
  for (auto it = s.points().rbegin(); it != s.points().rend(); ++it) {
    if (it->t > at) continue;
    return it->t >= from && !promql::is_stale_nan(it->v);
  }
  return false;
}

bool present(const Expr& selector, const History& history, promql::Timestamp ts) {
  const promql::Timestamp at = ts - selector.offset_ms;
  const promql::Timestamp from = at - std::max(promql::kLookbackDeltaMs, selector.range_ms);
  bool found = false;
  history.for_each_match(selector.matchers, [&](const promql::StoredSeries& s) {
    found = live_at(s, from, at);
    return !found;  // the first live series answers the question
  });
  return found;
}

/// Appends to `missing` the selectors `e` needs that are absent; returns true when satisfied.
bool needs(const Expr& e, const History& history, promql::Timestamp ts,
           std::vector<const Expr*>& missing) {
  switch (e.kind) {
    case ExprKind::number:
    case ExprKind::string:
      return true;
    case ExprKind::vector_selector:
    case ExprKind::matrix_selector:
      if (present(e, history, ts)) return true;
      missing.push_back(&e);
      return false;
    case ExprKind::call:
      // absent() and absent_over_time() are about missing series: they need nothing.
      if (e.text == "absent" || e.text == "absent_over_time") return true;
      break;
    case ExprKind::binary:
      if (e.op == BinaryOp::lor) {
        std::vector<const Expr*> left;
        std::vector<const Expr*> right;
        const bool l = needs(*e.args[0], history, ts, left);
        const bool r = needs(*e.args[1], history, ts, right);
        if (l || r) return true;
        missing.insert(missing.end(), left.begin(), left.end());
        missing.insert(missing.end(), right.begin(), right.end());
        return false;
      }
      if (e.op == BinaryOp::lunless) return needs(*e.args[0], history, ts, missing);
      break;
    default:
      break;
  }
  bool all = true;
  for (const auto& arg : e.args) all = needs(*arg, history, ts, missing) && all;
  return all;
}

std::string selector_text(const Expr& selector) {
  Expr instant;
  instant.kind = ExprKind::vector_selector;
  instant.text = selector.text;
  instant.matchers = selector.matchers;
  return promql::to_string(instant);
}

void add_group_coverage(const std::vector<RuleGroup>& groups, bool lifetime, const History& history,
                        promql::Timestamp ts, std::vector<RuleCoverage>& out) {
  for (const RuleGroup& group : groups) {
    for (const Rule& rule : group.rules) {
      if (!rule.is_alert) continue;
      RuleCoverage c{rule.name, group.name, lifetime, true, {}, {}};
      for (const Expr* sel : missing_inputs(*rule.expr, history, ts)) {
        std::string text = selector_text(*sel);
        if (std::find(c.missing.begin(), c.missing.end(), text) == c.missing.end()) {
          c.missing.push_back(std::move(text));
        }
        // A selector by regex on __name__ has no one metric name: name it by its text.
        const std::string metric = sel->text.empty() ? selector_text(*sel) : sel->text;
        if (std::find(c.missing_metrics.begin(), c.missing_metrics.end(), metric) ==
            c.missing_metrics.end()) {
          c.missing_metrics.push_back(metric);
        }
      }
      c.evaluable = c.missing.empty();
      out.push_back(std::move(c));
    }
  }
}

}  // namespace

std::vector<const promql::Expr*> missing_inputs(const promql::Expr& expr, const History& history,
                                                promql::Timestamp ts) {
  std::vector<const Expr*> missing;
  needs(expr, history, ts, missing);
  return missing;
}

std::vector<RuleCoverage> rule_coverage(const std::vector<RuleGroup>& live,
                                        const std::vector<RuleGroup>& lifetime,
                                        const History& history, promql::Timestamp ts) {
  std::vector<RuleCoverage> out;
  add_group_coverage(live, false, history, ts, out);
  add_group_coverage(lifetime, true, history, ts, out);
  return out;
}

}  // namespace rdmatop
