// Fleet-scope lint of Prometheus rule files (issue #20): behind one Prometheus, every host's
// series share one name space and differ by `instance`, so a join or an aggregation that drops
// `instance` lets one host's series complete (or hide) an alert on another. For each rule that
// is not labelled `scope: fleet`, this walks the parsed PromQL (rules/promql/ast.h) and reports:
//   - `on (...)` without instance (unless one side has no labels at all: a number, vector(),
//     or a fleet-wide configuration value as below);
//   - `ignoring (...)` or `without (...)` that list instance (they drop it);
//   - `by (...)` without instance, and an aggregation with no grouping, unless it aggregates
//     only recording rules (names with ':', Prometheus' level:metric:operation convention for
//     rules, never an exporter's series), e.g. an SLO threshold defined once for the fleet.
// Usage: fleet_scope_check FILE...; exit 0 clean, 1 findings (one line each), 2 unreadable.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "rules/promql/ast.h"
#include "rules/rule_file.h"

namespace {

using rdmatop::promql::Expr;
using rdmatop::promql::ExprKind;

bool has_instance(const std::vector<std::string>& labels) {
  return std::find(labels.begin(), labels.end(), "instance") != labels.end();
}

std::string list(const std::vector<std::string>& labels) {
  std::string out;
  for (const std::string& label : labels) out += (out.empty() ? "" : ", ") + label;
  return "(" + out + ")";
}

bool selects_only_recording_rules(const Expr& e) {
  if (e.kind == ExprKind::vector_selector || e.kind == ExprKind::matrix_selector) {
    return e.text.find(':') != std::string::npos;
  }
  bool any = false;
  for (const auto& arg : e.args) {
    if (!selects_only_recording_rules(*arg)) return false;
    any = true;
  }
  return any || e.kind == ExprKind::number;
}

/// True when the expression's result carries no labels, so matching it `on ()` joins nothing
/// across hosts.
bool labelless(const Expr& e) {
  switch (e.kind) {
    case ExprKind::number:
    case ExprKind::string:
      return true;
    case ExprKind::paren:
    case ExprKind::unary:
      return labelless(*e.args.front());
    case ExprKind::call:
      return e.text == "vector" || e.text == "scalar" || e.text == "time";
    case ExprKind::aggregate:
      return !e.without && e.grouping.empty();
    case ExprKind::binary:
      return labelless(*e.args.front()) && labelless(*e.args.back());
    default:
      return false;
  }
}

void check(const Expr& e, std::vector<std::string>& problems) {
  if (e.kind == ExprKind::aggregate) {
    const Expr& operand = *e.args.back();
    if (e.without && has_instance(e.grouping)) {
      problems.push_back(e.text + " without " + list(e.grouping) + " drops instance");
    } else if (!e.without && !has_instance(e.grouping) &&
               !(e.grouping.empty() && selects_only_recording_rules(operand))) {
      problems.push_back(e.grouping.empty()
                             ? e.text + " with no by () merges every host: " + to_string(e)
                             : e.text + " by " + list(e.grouping) + " does not keep instance");
    }
  }
  if (e.kind == ExprKind::binary && e.args.size() == 2) {
    const auto& m = e.matching;
    if (m.on && !has_instance(m.labels) && !labelless(*e.args[0]) && !labelless(*e.args[1])) {
      problems.push_back("on " + list(m.labels) + " does not keep instance");
    } else if (!m.on && has_instance(m.labels)) {
      problems.push_back("ignoring " + list(m.labels) + " drops instance");
    }
  }
  for (const auto& arg : e.args) check(*arg, problems);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: fleet_scope_check FILE...\n";
    return 2;
  }
  int findings = 0;
  int rules = 0;
  for (int i = 1; i < argc; ++i) {
    std::ifstream in(argv[i]);
    if (!in) {
      std::cerr << argv[i] << ": cannot read\n";
      return 2;
    }
    std::stringstream text;
    text << in.rdbuf();
    const rdmatop::RuleFileLoad load = rdmatop::parse_rule_file(text.str(), argv[i]);
    for (const auto& error : load.errors) {
      std::cerr << rdmatop::to_string(error) << "\n";
      return 2;
    }
    for (const auto& group : load.groups) {
      for (const auto& rule : group.rules) {
        ++rules;
        if (rdmatop::label_value(rule.labels, "scope") == "fleet") continue;
        std::vector<std::string> problems;
        check(*rule.expr, problems);
        for (const std::string& problem : problems) {
          std::cout << rule.file << ":" << rule.line << ": " << rule.name << ": " << problem
                    << " (keep instance, or label the rule scope: fleet)\n";
          ++findings;
        }
      }
    }
  }
  std::cout << rules << " rules, " << findings << " fleet-scope findings\n";
  return findings == 0 ? 0 : 1;
}
