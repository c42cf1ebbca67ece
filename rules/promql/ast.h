// The PromQL syntax tree. One node struct with a kind tag keeps the evaluator a plain switch;
// fields that a kind does not use stay empty.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collector/model/regex.h"
#include "rules/promql/value.h"

namespace rdmatop::promql {

enum class MatchOp : std::uint8_t { equal, not_equal, regex, not_regex };

/// `name="value"`, `name=~"re"`, ... Regexes are RE2, fully anchored, as Prometheus anchors them
/// (`^(?:re)$`, prometheus/model/labels/matcher.go).
struct LabelMatcher {
  std::string name;
  MatchOp op = MatchOp::equal;
  std::string value;
  AnchoredRegex re;  ///< set for regex / not_regex

  bool matches(const std::string& v) const;
};

enum class BinaryOp : std::uint8_t {
  add,
  sub,
  mul,
  div,
  mod,
  pow,
  atan2,
  eq,
  ne,
  gt,
  lt,
  ge,
  le,
  land,
  lor,
  lunless,
};

/// The aggregation operators (prometheus/promql/parser/lex.go). The parser resolves an
/// aggregation's name (Expr::aggregate), so evaluating it compares no names.
enum class AggregateOp : std::uint8_t {
  sum,
  avg,
  count,
  min,
  max,
  group,
  stddev,
  stdvar,
  topk,
  bottomk,
  quantile,
  count_values
};

/// The operator called `name`, or nullopt when `name` is not an aggregation.
std::optional<AggregateOp> aggregate_op(std::string_view name);

bool is_comparison(BinaryOp op);
bool is_set_operator(BinaryOp op);
const char* to_string(BinaryOp op);

enum class Cardinality : std::uint8_t { one_to_one, many_to_one, one_to_many, many_to_many };

/// on(...)/ignoring(...) and group_left/group_right(...) of a binary operation.
struct VectorMatching {
  Cardinality card = Cardinality::one_to_one;
  bool on = false;                   ///< true: `on(labels)`; false: `ignoring(labels)`
  std::vector<std::string> labels;   ///< the matching labels
  std::vector<std::string> include;  ///< labels copied from the "one" side by group_x
};

enum class ExprKind : std::uint8_t {
  number,
  string,
  vector_selector,
  matrix_selector,
  subquery,
  call,
  aggregate,
  binary,
  unary,
  paren,
};

/// The `@` modifier (prometheus/promql/parser/ast.go: Timestamp, StartOrEnd).
enum class AtKind : std::uint8_t { none, timestamp, start, end };

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Expr {
  ExprKind kind = ExprKind::number;
  std::size_t pos = 0;  ///< byte offset of the node in the expression text

  double number = 0;  ///< number
  std::string text;   ///< string literal; metric name of a selector; function/aggregation name

  // Selectors (vector_selector, matrix_selector) and subqueries.
  std::vector<LabelMatcher> matchers;  ///< including the `__name__` matcher for a named selector
  Timestamp range_ms = 0;              ///< matrix selector / subquery range
  Timestamp step_ms = 0;               ///< subquery resolution (0 = the evaluation interval)
  Timestamp offset_ms = 0;
  AtKind at = AtKind::none;  ///< `@ <time>`, `@ start()`, `@ end()`
  Timestamp at_ms = 0;       ///< the time of `@ <time>`

  // call / aggregate / binary / unary / paren / subquery operands, in source order.
  // Aggregations put the parameter (topk's k) first when present.
  std::vector<ExprPtr> args;

  // Aggregation.
  AggregateOp aggregate = AggregateOp::sum;  ///< the operator `text` names (set by the parser)
  std::vector<std::string> grouping;
  bool without = false;

  // Binary / unary (unary uses op = sub or add).
  BinaryOp op = BinaryOp::add;
  bool return_bool = false;
  VectorMatching matching;

  /// Set by mark_repeated_subexpressions: nodes of the same structure in one
  /// expression share a slot, and one evaluation computes them once. -1: not repeated.
  int repeat_slot = -1;
};

/// Gives every subexpression that occurs more than once in `root` (the same structure, so the
/// same value at one evaluation time) a shared `repeat_slot`. One bottom-up pass of hashes, then an
/// exact comparison of the candidates. Selectors and literals are left out (reading them again
/// costs no more than keeping them), and so is everything inside a subquery, which is evaluated at
/// other times.
void mark_repeated_subexpressions(Expr& root);

/// The static type an expression evaluates to.
ValueType expr_type(const Expr& e);

/// Canonical text of an expression (used in messages and rule listings).
std::string to_string(const Expr& e);

/// The longest range any selector or subquery in `e` looks back (range + offset), plus the
/// lookback delta for instant selectors; used to size the History window.
Timestamp max_lookback_ms(const Expr& e);

/// The evaluation steps the subqueries of `e` take in one evaluation, a nested one once per
/// step of the one around it; `default_step_ms` is the step of a subquery written without one
/// (the rule group's interval). Each step costs at least one unit of the evaluator's sample
/// budget (EvalOptions::max_samples), so this is a lower bound known before any data: what
/// `rules check` can refuse statically. A double, as [1000d:1ms] inside [1000d:1ms] overflows
/// 64 bits.
double subquery_steps(const Expr& e, Timestamp default_step_ms);

}  // namespace rdmatop::promql
