// PromQL parser: tokens -> syntax tree, with Prometheus's static type checks (checkAST in
// prometheus/promql/parser/parse.go) so a bad rule fails at load time, not at evaluation.
#pragma once

#include <string>

#include "collector/model/result.h"
#include "rules/promql/ast.h"

namespace rdmatop::promql {

/// A parse error: `offset` is the byte offset in the expression text.
struct ParseError {
  std::size_t offset = 0;
  std::string message;  ///< what was found and what was expected
};

class ParseResult {
 public:
  ParseResult(ExprPtr expr) : expr_(std::move(expr)) {}        // NOLINT
  ParseResult(ParseError error) : error_(std::move(error)) {}  // NOLINT
  bool ok() const { return expr_ != nullptr; }
  explicit operator bool() const { return ok(); }
  ExprPtr& expr() { return expr_; }
  const ParseError& error() const { return error_; }

 private:
  ExprPtr expr_;
  ParseError error_;
};

ParseResult parse_expr(const std::string& input);

/// A series description as used by promtool's `input_series` and `exp_samples`:
/// `name{a="b",...}` or `{__name__="name",...}` with equality matchers only.
Result<Labels> parse_series_labels(const std::string& input);

/// 1-based line and column of a byte offset in `text`.
std::pair<int, int> line_column(const std::string& text, std::size_t offset);

}  // namespace rdmatop::promql
