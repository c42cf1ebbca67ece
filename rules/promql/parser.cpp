#include "rules/promql/parser.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <unordered_map>

#include "rules/promql/functions.h"
#include "rules/promql/lexer.h"

namespace rdmatop::promql {

namespace {

// Internal control flow: the first error aborts the whole parse, as in Prometheus's parser.
struct ParseFailure {
  ParseError error;
};

[[noreturn]] void fail(std::size_t pos, std::string message) {
  throw ParseFailure{ParseError{pos, std::move(message)}};
}

bool is_aggregate(const std::string& name) {
  return aggregate_op(name).has_value();
}

bool is_keyword(const std::string& s) {
  static const std::set<std::string> kKeywords = {"and",         "or",     "unless",   "by",
                                                  "without",     "on",     "ignoring", "group_left",
                                                  "group_right", "offset", "bool",     "atan2"};
  return kKeywords.count(s) != 0;
}

bool is_label_name(const std::string& s) {
  return s.find(':') == std::string::npos;
}

// Precedence from prometheus/promql/parser/lex.go `ItemType.Precedence`.
int precedence(BinaryOp op) {
  switch (op) {
    case BinaryOp::lor:
      return 1;
    case BinaryOp::land:
    case BinaryOp::lunless:
      return 2;
    case BinaryOp::eq:
    case BinaryOp::ne:
    case BinaryOp::gt:
    case BinaryOp::lt:
    case BinaryOp::ge:
    case BinaryOp::le:
      return 3;
    case BinaryOp::add:
    case BinaryOp::sub:
      return 4;
    case BinaryOp::mul:
    case BinaryOp::div:
    case BinaryOp::mod:
    case BinaryOp::atan2:
      return 5;
    case BinaryOp::pow:
      return 6;
  }
  return 0;
}

std::string describe(const Token& t) {
  switch (t.kind) {
    case TokenKind::end:
      return "end of input";
    case TokenKind::identifier:
      return "identifier \"" + t.text + "\"";
    case TokenKind::number:
      return "number \"" + t.text + "\"";
    case TokenKind::duration:
      return "duration \"" + t.text + "\"";
    case TokenKind::string:
      return "string \"" + t.text + "\"";
    default:
      return to_string(t.kind);
  }
}

/// How deep an expression may nest, counted both as the parser's recursion (parentheses,
/// calls, unary signs) and as the height of the tree (a chain `a + b + c ...` of n operators is
/// n levels high). The parser, the evaluator, the tree's destructor and to_string() all recurse
/// once per level: about 5,300 parentheses overflowed an 8 MiB stack (#22 item 3), and in the
/// -O1 ASan build 1,000 levels already did; 256 keeps a margin there and for threads with
/// smaller stacks, while the deepest built-in rule is under 20 levels. Prometheus has no such
/// limit.
constexpr std::size_t kMaxNestingDepth = 256;

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : toks_(std::move(tokens)) {}

  ExprPtr parse_all() {
    ExprPtr e = parse_binary(0);
    if (peek().kind != TokenKind::end) {
      fail(peek().pos, "unexpected " + describe(peek()) + ", expected an operator or end of input");
    }
    return e;
  }

  Labels parse_series() {
    ExprPtr e = parse_primary();
    if (peek().kind != TokenKind::end || e->kind != ExprKind::vector_selector) {
      fail(peek().pos, "expected a series description like name{label=\"value\"}");
    }
    Labels labels;
    for (const auto& m : e->matchers) {
      if (m.op != MatchOp::equal) fail(e->pos, "series descriptions take only \"=\" matchers");
      set_label(labels, m.name, m.value);
    }
    return labels;
  }

 private:
  const Token& peek(std::size_t ahead = 0) const {
    return toks_[std::min(i_ + ahead, toks_.size() - 1)];
  }
  Token next() {
    Token t = peek();
    if (i_ < toks_.size() - 1) ++i_;
    return t;
  }
  Token expect(TokenKind kind, const char* context) {
    if (peek().kind != kind) {
      fail(peek().pos,
           "unexpected " + describe(peek()) + " in " + context + ", expected " + to_string(kind));
    }
    return next();
  }
  bool peek_ident(const char* word, std::size_t ahead = 0) const {
    return peek(ahead).kind == TokenKind::identifier && peek(ahead).keyword == word;
  }

  std::optional<BinaryOp> peek_binop() const {
    const Token& t = peek();
    switch (t.kind) {
      case TokenKind::add:
        return BinaryOp::add;
      case TokenKind::sub:
        return BinaryOp::sub;
      case TokenKind::mul:
        return BinaryOp::mul;
      case TokenKind::div:
        return BinaryOp::div;
      case TokenKind::mod:
        return BinaryOp::mod;
      case TokenKind::pow:
        return BinaryOp::pow;
      case TokenKind::eq:
        return BinaryOp::eq;
      case TokenKind::ne:
        return BinaryOp::ne;
      case TokenKind::lt:
        return BinaryOp::lt;
      case TokenKind::gt:
        return BinaryOp::gt;
      case TokenKind::le:
        return BinaryOp::le;
      case TokenKind::ge:
        return BinaryOp::ge;
      case TokenKind::identifier:
        if (t.keyword == "and") return BinaryOp::land;
        if (t.keyword == "or") return BinaryOp::lor;
        if (t.keyword == "unless") return BinaryOp::lunless;
        if (t.keyword == "atan2") return BinaryOp::atan2;
        return std::nullopt;
      default:
        return std::nullopt;
    }
  }

  /// Counts the parser's recursion through parse_binary, which every nesting construct enters.
  class DepthGuard {
   public:
    explicit DepthGuard(Parser& p) : p_(p) {
      if (++p_.depth_ > kMaxNestingDepth) fail(p_.peek().pos, nesting_message());
    }
    ~DepthGuard() { --p_.depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;

   private:
    Parser& p_;
  };

  static std::string nesting_message() {
    return "expression nests deeper than " + std::to_string(kMaxNestingDepth) +
           " levels (parentheses, calls or a chain of binary operators); split it with a "
           "recording rule";
  }

  /// The static type and the height of a node, memoized: each node is asked for when its
  /// parent is built, and computing them afresh (expr_type recurses) made a chain of n binary
  /// operators cost n^2.
  struct NodeInfo {
    ValueType type = ValueType::vector;
    std::size_t height = 1;
  };
  const NodeInfo& info(const Expr& e) {
    if (const auto it = info_.find(&e); it != info_.end()) return it->second;
    NodeInfo out;
    for (const auto& a : e.args) out.height = std::max(out.height, info(*a).height + 1);
    switch (e.kind) {
      case ExprKind::binary:
        out.type =
            info(*e.args[0]).type == ValueType::scalar && info(*e.args[1]).type == ValueType::scalar
                ? ValueType::scalar
                : ValueType::vector;
        break;
      case ExprKind::unary:
      case ExprKind::paren:
        out.type = info(*e.args[0]).type;
        break;
      default:
        out.type = expr_type(e);  // a leaf, a call, an aggregation or a subquery: no recursion
        break;
    }
    return info_.emplace(&e, out).first->second;
  }
  ValueType type_of(const Expr& e) { return info(e).type; }

  ExprPtr parse_binary(int min_prec) {
    const DepthGuard guard(*this);
    ExprPtr lhs = parse_unary();
    while (true) {
      if (info(*lhs).height > kMaxNestingDepth) fail(lhs->pos, nesting_message());
      auto op = peek_binop();
      if (!op || precedence(*op) < min_prec) return lhs;
      const Token op_tok = next();
      auto e = node(ExprKind::binary, op_tok.pos);
      e->op = *op;
      const bool has_matching_clause = parse_binary_modifiers(*e);
      // `^` is right-associative; everything else is left-associative.
      const int next_min = *op == BinaryOp::pow ? precedence(*op) : precedence(*op) + 1;
      ExprPtr rhs = parse_binary(next_min);
      e->args.push_back(std::move(lhs));
      e->args.push_back(std::move(rhs));
      check_binary(*e, has_matching_clause);
      lhs = std::move(e);
    }
  }

  bool parse_binary_modifiers(Expr& e) {
    if (peek_ident("bool")) {
      next();
      e.return_bool = true;
    }
    bool has_matching_clause = false;
    if (peek_ident("on") || peek_ident("ignoring")) {
      e.matching.on = next().keyword == "on";
      e.matching.labels = parse_label_list("on/ignoring clause");
      has_matching_clause = true;
    }
    if (peek_ident("group_left") || peek_ident("group_right")) {
      const Token t = next();
      e.matching.card =
          t.keyword == "group_left" ? Cardinality::many_to_one : Cardinality::one_to_many;
      if (peek().kind == TokenKind::lparen) e.matching.include = parse_label_list("group clause");
      if (!has_matching_clause) {
        fail(t.pos, "unexpected " + t.text + ", expected on or ignoring before it");
      }
    }
    e.matching.labels.erase(std::remove(e.matching.labels.begin(), e.matching.labels.end(), ""),
                            e.matching.labels.end());
    if (is_set_operator(e.op)) {
      if (e.matching.card != Cardinality::one_to_one) {
        fail(e.pos, std::string("no grouping allowed for \"") + to_string(e.op) + "\" operation");
      }
      e.matching.card = Cardinality::many_to_many;
    }
    return has_matching_clause;
  }

  void check_binary(Expr& e, bool has_matching_clause) {
    const ValueType lt = type_of(*e.args[0]);
    const ValueType rt = type_of(*e.args[1]);
    auto ok_type = [](ValueType t) { return t == ValueType::scalar || t == ValueType::vector; };
    if (!ok_type(lt) || !ok_type(rt)) {
      fail(e.pos, "binary expression must contain only scalar and instant vector types");
    }
    if (e.return_bool && !is_comparison(e.op)) {
      fail(e.pos, "bool modifier can only be used on comparison operators");
    }
    if (is_comparison(e.op) && !e.return_bool && lt == ValueType::scalar &&
        rt == ValueType::scalar) {
      fail(e.pos, "comparisons between scalars must use BOOL modifier");
    }
    if (is_set_operator(e.op) && (lt != ValueType::vector || rt != ValueType::vector)) {
      fail(e.pos, std::string("set operator \"") + to_string(e.op) +
                      "\" not allowed in binary scalar expression");
    }
    if ((lt != ValueType::vector || rt != ValueType::vector) &&
        (has_matching_clause || !e.matching.include.empty())) {
      fail(e.pos, "vector matching only allowed between instant vectors");
    }
    if (e.matching.on) {
      for (const auto& l : e.matching.include) {
        if (std::find(e.matching.labels.begin(), e.matching.labels.end(), l) !=
            e.matching.labels.end()) {
          fail(e.pos, "label \"" + l + "\" must not occur in ON and GROUP clause at once");
        }
      }
    }
  }

  ExprPtr parse_unary() {
    if (peek().kind == TokenKind::sub || peek().kind == TokenKind::add) {
      const Token t = next();
      // Unary minus binds like multiplication but below `^` (parser/generated_parser.y).
      ExprPtr operand = parse_binary(precedence(BinaryOp::pow));
      const ValueType type = type_of(*operand);
      if (type != ValueType::scalar && type != ValueType::vector) {
        fail(t.pos,
             "unary expression only allowed on expressions of type scalar or instant vector");
      }
      if (t.kind == TokenKind::add) return operand;
      if (operand->kind == ExprKind::number) {
        operand->number = -operand->number;
        operand->pos = t.pos;
        return operand;
      }
      auto e = node(ExprKind::unary, t.pos);
      e->op = BinaryOp::sub;
      e->args.push_back(std::move(operand));
      return e;
    }
    return parse_postfix(parse_primary());
  }

  ExprPtr parse_postfix(ExprPtr e) {
    while (true) {
      if (peek().kind == TokenKind::lbracket) {
        const Token open = next();
        const Token range = expect(TokenKind::duration, "range selector");
        if (peek().kind == TokenKind::colon) {
          next();
          auto sq = node(ExprKind::subquery, open.pos);
          sq->range_ms = range.duration_ms;
          if (peek().kind == TokenKind::duration) sq->step_ms = next().duration_ms;
          expect(TokenKind::rbracket, "subquery");
          const ValueType t = type_of(*e);
          if (t != ValueType::vector) {
            fail(open.pos, std::string("subquery is only allowed on instant vector, got ") +
                               to_string(t) + " instead");
          }
          sq->args.push_back(std::move(e));
          e = std::move(sq);
          continue;
        }
        expect(TokenKind::rbracket, "range selector");
        if (e->kind != ExprKind::vector_selector || e->offset_ms != 0 || e->at != AtKind::none) {
          fail(open.pos, "ranges only allowed for vector selectors");
        }
        if (range.duration_ms <= 0) fail(range.pos, "range must be positive");
        e->kind = ExprKind::matrix_selector;
        e->range_ms = range.duration_ms;
        continue;
      }
      if (peek_ident("offset")) {
        const Token t = next();
        bool negative = false;
        if (peek().kind == TokenKind::sub) {
          next();
          negative = true;
        }
        const Token d = expect(TokenKind::duration, "offset");
        if (e->kind != ExprKind::vector_selector && e->kind != ExprKind::matrix_selector &&
            e->kind != ExprKind::subquery) {
          fail(t.pos,
               "offset modifier must be preceded by an instant vector selector or range "
               "vector selector or a subquery");
        }
        if (e->offset_ms != 0) fail(t.pos, "offset may not be set multiple times");
        e->offset_ms = negative ? -d.duration_ms : d.duration_ms;
        continue;
      }
      if (peek().kind == TokenKind::at) {
        parse_at(*e);
        continue;
      }
      return e;
    }
  }

  // `@ <number>`, `@ start()`, `@ end()` (parser/generated_parser.y at_modifier,
  // parser.go setTimestamp): seconds, rounded to milliseconds.
  void parse_at(Expr& e) {
    const Token at = next();
    if (e.kind != ExprKind::vector_selector && e.kind != ExprKind::matrix_selector &&
        e.kind != ExprKind::subquery) {
      fail(at.pos,
           "@ modifier must be preceded by an instant vector selector or range vector selector or "
           "a subquery");
    }
    if (e.at != AtKind::none) fail(at.pos, "@ <timestamp> may not be set multiple times");
    if (peek_ident("start") || peek_ident("end")) {
      e.at = next().keyword == "start" ? AtKind::start : AtKind::end;
      expect(TokenKind::lparen, "@ modifier");
      expect(TokenKind::rparen, "@ modifier");
      return;
    }
    double sign = 1;
    if (peek().kind == TokenKind::sub || peek().kind == TokenKind::add) {
      if (next().kind == TokenKind::sub) sign = -1;
    }
    const Token n = expect(TokenKind::number, "@ modifier");
    const double ts = sign * n.number;
    if (!std::isfinite(ts) || ts >= 9.2e15 || ts <= -9.2e15) {
      fail(n.pos, "timestamp out of bounds for @ modifier: " + format_float(ts));
    }
    e.at = AtKind::timestamp;
    e.at_ms = static_cast<Timestamp>(std::round(ts * 1000));
  }

  std::vector<std::string> parse_label_list(const char* context) {
    expect(TokenKind::lparen, context);
    std::vector<std::string> out;
    while (peek().kind != TokenKind::rparen) {
      const Token t = expect(TokenKind::identifier, context);
      if (!is_label_name(t.text)) fail(t.pos, "invalid label name \"" + t.text + "\"");
      out.push_back(t.text);
      if (peek().kind == TokenKind::comma) {
        next();
      } else if (peek().kind != TokenKind::rparen) {
        fail(peek().pos,
             "unexpected " + describe(peek()) + " in " + context + ", expected \",\" or \")\"");
      }
    }
    next();
    return out;
  }

  static ExprPtr node(ExprKind kind, std::size_t pos) {
    auto e = std::make_unique<Expr>();
    e->kind = kind;
    e->pos = pos;
    return e;
  }

  ExprPtr parse_primary() {
    const Token t = peek();
    switch (t.kind) {
      case TokenKind::number: {
        next();
        auto e = node(ExprKind::number, t.pos);
        e->number = t.number;
        return e;
      }
      case TokenKind::string: {
        next();
        auto e = node(ExprKind::string, t.pos);
        e->text = t.text;
        return e;
      }
      case TokenKind::lparen: {
        next();
        auto e = node(ExprKind::paren, t.pos);
        e->args.push_back(parse_binary(0));
        expect(TokenKind::rparen, "parenthesized expression");
        return e;
      }
      case TokenKind::lbrace:
        return parse_selector("", t.pos);
      case TokenKind::identifier:
        break;
      default:
        fail(t.pos, "unexpected " + describe(t) +
                        ", expected a number, string, selector, function or \"(\"");
    }
    if (is_aggregate(t.keyword) &&
        (peek(1).kind == TokenKind::lparen || peek_ident("by", 1) || peek_ident("without", 1))) {
      return parse_aggregate();
    }
    if (peek(1).kind == TokenKind::lparen) return parse_call();
    if (is_keyword(t.keyword)) fail(t.pos, "unexpected keyword \"" + t.text + "\"");
    next();
    return parse_selector(t.text, t.pos);
  }

  ExprPtr parse_selector(const std::string& name, std::size_t pos) {
    auto e = node(ExprKind::vector_selector, pos);
    e->text = name;
    if (!name.empty()) {
      e->matchers.push_back(LabelMatcher{kMetricNameLabel, MatchOp::equal, name, {}});
    }
    if (peek().kind == TokenKind::lbrace) {
      next();
      while (peek().kind != TokenKind::rbrace) {
        const Token label = expect(TokenKind::identifier, "label matching");
        if (!is_label_name(label.text))
          fail(label.pos, "invalid label name \"" + label.text + "\"");
        const Token op = next();
        MatchOp mop = MatchOp::equal;
        switch (op.kind) {
          case TokenKind::assign:
            mop = MatchOp::equal;
            break;
          case TokenKind::ne:
            mop = MatchOp::not_equal;
            break;
          case TokenKind::re:
            mop = MatchOp::regex;
            break;
          case TokenKind::nre:
            mop = MatchOp::not_regex;
            break;
          default:
            fail(op.pos, "unexpected " + describe(op) +
                             " in label matching, expected one of \"=\", \"!=\", \"=~\", \"!~\"");
        }
        const Token value = expect(TokenKind::string, "label matching");
        LabelMatcher m{label.text, mop, value.text, {}};
        if (mop == MatchOp::regex || mop == MatchOp::not_regex) {
          auto re = AnchoredRegex::compile(value.text);
          if (!re) fail(value.pos, re.error().message);
          m.re = std::move(re).value();
        }
        if (label.text == kMetricNameLabel && mop == MatchOp::equal && !name.empty()) {
          fail(label.pos,
               "metric name must not be set twice: \"" + name + "\" or \"" + value.text + "\"");
        }
        e->matchers.push_back(std::move(m));
        if (peek().kind == TokenKind::comma) {
          next();
        } else if (peek().kind != TokenKind::rbrace) {
          fail(peek().pos,
               "unexpected " + describe(peek()) + " in label matching, expected \",\" or \"}\"");
        }
      }
      next();
    }
    if (e->matchers.empty())
      fail(pos, "vector selector must contain at least one non-empty matcher");
    const bool any_non_empty = std::any_of(e->matchers.begin(), e->matchers.end(),
                                           [](const LabelMatcher& m) { return !m.matches(""); });
    if (!any_non_empty) fail(pos, "vector selector must contain at least one non-empty matcher");
    for (const auto& m : e->matchers) {
      if (m.name == kMetricNameLabel && m.op == MatchOp::equal) e->text = m.value;
    }
    return e;
  }

  ExprPtr parse_call() {
    const Token name = next();
    const FunctionSpec* spec = find_function(name.text);
    if (spec == nullptr) fail(name.pos, "unknown function with name \"" + name.text + "\"");
    auto e = node(ExprKind::call, name.pos);
    e->text = name.text;
    expect(TokenKind::lparen, "function call");
    while (peek().kind != TokenKind::rparen) {
      e->args.push_back(parse_binary(0));
      if (peek().kind == TokenKind::comma) {
        next();
      } else if (peek().kind != TokenKind::rparen) {
        fail(peek().pos,
             "unexpected " + describe(peek()) + " in function call, expected \",\" or \")\"");
      }
    }
    next();
    // parse.go checkAST: a fixed count, else "at least" / "at most" for variadic functions.
    const std::size_t max_args = spec->arg_types.size();
    const std::size_t min_args =
        max_args - static_cast<std::size_t>(spec->optional_args) - (spec->repeat_last ? 1 : 0);
    const std::string got_n = std::to_string(e->args.size());
    if (spec->optional_args == 0 && !spec->repeat_last && e->args.size() != max_args) {
      fail(name.pos, "expected " + std::to_string(max_args) + " argument(s) in call to \"" +
                         name.text + "\", got " + got_n);
    }
    if (e->args.size() < min_args) {
      fail(name.pos, "expected at least " + std::to_string(min_args) +
                         " argument(s) in call to \"" + name.text + "\", got " + got_n);
    }
    if (!spec->repeat_last && e->args.size() > max_args) {
      fail(name.pos, "expected at most " + std::to_string(max_args) + " argument(s) in call to \"" +
                         name.text + "\", got " + got_n);
    }
    for (std::size_t k = 0; k < e->args.size(); ++k) {
      const ValueType want = spec->arg_types[std::min(k, max_args - 1)];
      const ValueType got = type_of(*e->args[k]);
      if (got != want) {
        fail(e->args[k]->pos, std::string("expected type ") + to_string(want) +
                                  " in call to function \"" + name.text + "\", got " +
                                  to_string(got));
      }
    }
    return e;
  }

  ExprPtr parse_aggregate() {
    const Token name = next();
    auto e = node(ExprKind::aggregate, name.pos);
    e->text = name.keyword;
    e->aggregate = *aggregate_op(name.keyword);  // the caller saw is_aggregate
    bool grouped = false;
    auto parse_grouping = [&] {
      if (peek_ident("by") || peek_ident("without")) {
        if (grouped) fail(peek().pos, "aggregation grouping given twice");
        e->without = next().keyword == "without";
        e->grouping = parse_label_list("grouping clause");
        grouped = true;
      }
    };
    parse_grouping();
    expect(TokenKind::lparen, "aggregation");
    while (peek().kind != TokenKind::rparen) {
      e->args.push_back(parse_binary(0));
      if (peek().kind == TokenKind::comma) {
        next();
      } else if (peek().kind != TokenKind::rparen) {
        fail(peek().pos,
             "unexpected " + describe(peek()) + " in aggregation, expected \",\" or \")\"");
      }
    }
    next();
    parse_grouping();
    const bool takes_param = e->text == "topk" || e->text == "bottomk" || e->text == "quantile" ||
                             e->text == "count_values";
    const std::size_t want = takes_param ? 2 : 1;
    if (e->args.size() != want) {
      fail(name.pos, "wrong number of arguments for aggregate expression provided, expected " +
                         std::to_string(want) + ", got " + std::to_string(e->args.size()));
    }
    if (takes_param) {
      const ValueType pt = type_of(*e->args[0]);
      const ValueType want_t = e->text == "count_values" ? ValueType::string : ValueType::scalar;
      if (pt != want_t) {
        fail(e->args[0]->pos, std::string("expected type ") + to_string(want_t) +
                                  " in aggregation parameter, got " + to_string(pt));
      }
    }
    if (type_of(*e->args.back()) != ValueType::vector) {
      fail(e->args.back()->pos, std::string("expected type instant vector in aggregation "
                                            "expression, got ") +
                                    to_string(type_of(*e->args.back())));
    }
    return e;
  }

  std::vector<Token> toks_;
  std::size_t i_ = 0;
  std::size_t depth_ = 0;
  std::unordered_map<const Expr*, NodeInfo> info_;
};

}  // namespace

ParseResult parse_expr(const std::string& input) {
  auto tokens = lex(input);
  if (!tokens) {
    return ParseError{static_cast<std::size_t>(tokens.error().code), tokens.error().message};
  }
  try {
    Parser p(std::move(tokens).value());
    ExprPtr e = p.parse_all();
    mark_repeated_subexpressions(*e);
    return e;
  } catch (const ParseFailure& f) {
    return f.error;
  }
}

Result<Labels> parse_series_labels(const std::string& input) {
  auto tokens = lex(input);
  if (!tokens) return Error{0, tokens.error().message};
  // "{}" is the empty label set (promtool's exp_samples use it for scalar-like results).
  if (tokens->size() == 3 && (*tokens)[0].kind == TokenKind::lbrace &&
      (*tokens)[1].kind == TokenKind::rbrace) {
    return Labels{};
  }
  try {
    Parser p(std::move(tokens).value());
    return p.parse_series();
  } catch (const ParseFailure& f) {
    return Error{0, "series \"" + input + "\": " + f.error.message};
  }
}

std::pair<int, int> line_column(const std::string& text, std::size_t offset) {
  int line = 1;
  int col = 1;
  for (std::size_t k = 0; k < offset && k < text.size(); ++k) {
    if (text[k] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

}  // namespace rdmatop::promql
