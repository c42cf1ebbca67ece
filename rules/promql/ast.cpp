#include "rules/promql/ast.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <tuple>
#include <utility>

#include "rules/promql/functions.h"
#include "rules/promql/lexer.h"

namespace rdmatop::promql {

bool LabelMatcher::matches(const std::string& v) const {
  switch (op) {
    case MatchOp::equal:
      return v == value;
    case MatchOp::not_equal:
      return v != value;
    case MatchOp::regex:
      return re.matches(v);
    case MatchOp::not_regex:
      return !re.matches(v);
  }
  return false;
}

std::optional<AggregateOp> aggregate_op(std::string_view name) {
  static constexpr std::pair<std::string_view, AggregateOp> kOps[] = {
      {"sum", AggregateOp::sum},           {"avg", AggregateOp::avg},
      {"count", AggregateOp::count},       {"min", AggregateOp::min},
      {"max", AggregateOp::max},           {"group", AggregateOp::group},
      {"stddev", AggregateOp::stddev},     {"stdvar", AggregateOp::stdvar},
      {"topk", AggregateOp::topk},         {"bottomk", AggregateOp::bottomk},
      {"quantile", AggregateOp::quantile}, {"count_values", AggregateOp::count_values}};
  for (const auto& [text, op] : kOps) {
    if (text == name) return op;
  }
  return std::nullopt;
}

bool is_comparison(BinaryOp op) {
  return op == BinaryOp::eq || op == BinaryOp::ne || op == BinaryOp::gt || op == BinaryOp::lt ||
         op == BinaryOp::ge || op == BinaryOp::le;
}

bool is_set_operator(BinaryOp op) {
  return op == BinaryOp::land || op == BinaryOp::lor || op == BinaryOp::lunless;
}

const char* to_string(BinaryOp op) {
  switch (op) {
    case BinaryOp::add:
      return "+";
    case BinaryOp::sub:
      return "-";
    case BinaryOp::mul:
      return "*";
    case BinaryOp::div:
      return "/";
    case BinaryOp::mod:
      return "%";
    case BinaryOp::pow:
      return "^";
    case BinaryOp::atan2:
      return "atan2";
    case BinaryOp::eq:
      return "==";
    case BinaryOp::ne:
      return "!=";
    case BinaryOp::gt:
      return ">";
    case BinaryOp::lt:
      return "<";
    case BinaryOp::ge:
      return ">=";
    case BinaryOp::le:
      return "<=";
    case BinaryOp::land:
      return "and";
    case BinaryOp::lor:
      return "or";
    case BinaryOp::lunless:
      return "unless";
  }
  return "?";
}

ValueType expr_type(const Expr& e) {
  switch (e.kind) {
    case ExprKind::number:
      return ValueType::scalar;
    case ExprKind::string:
      return ValueType::string;
    case ExprKind::vector_selector:
      return ValueType::vector;
    case ExprKind::matrix_selector:
    case ExprKind::subquery:
      return ValueType::matrix;
    case ExprKind::call: {
      const FunctionSpec* spec = find_function(e.text);
      return spec != nullptr ? spec->return_type : ValueType::vector;
    }
    case ExprKind::aggregate:
      return ValueType::vector;
    case ExprKind::binary:
      return expr_type(*e.args[0]) == ValueType::scalar &&
                     expr_type(*e.args[1]) == ValueType::scalar
                 ? ValueType::scalar
                 : ValueType::vector;
    case ExprKind::unary:
    case ExprKind::paren:
      return expr_type(*e.args[0]);
  }
  return ValueType::vector;
}

namespace {

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string label_list(const std::vector<std::string>& labels) {
  std::string out = "(";
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (i > 0) out += ", ";
    out += labels[i];
  }
  return out + ")";
}

std::string selector_text(const Expr& e) {
  std::string out = e.text;
  std::string inner;
  for (const auto& m : e.matchers) {
    if (m.name == kMetricNameLabel && m.op == MatchOp::equal && m.value == e.text) continue;
    if (!inner.empty()) inner += ", ";
    static constexpr const char* kOps[] = {"=", "!=", "=~", "!~"};
    inner += m.name + kOps[static_cast<int>(m.op)] + quote(m.value);
  }
  if (!inner.empty() || out.empty()) out += "{" + inner + "}";
  return out;
}

}  // namespace

std::string to_string(const Expr& e) {
  std::string offset = e.offset_ms < 0    ? " offset -" + format_duration(-e.offset_ms)
                       : e.offset_ms != 0 ? " offset " + format_duration(e.offset_ms)
                                          : "";
  if (e.at == AtKind::timestamp)
    offset += " @ " + format_float(static_cast<double>(e.at_ms) / 1000);
  if (e.at == AtKind::start) offset += " @ start()";
  if (e.at == AtKind::end) offset += " @ end()";
  switch (e.kind) {
    case ExprKind::number:
      return format_float(e.number);
    case ExprKind::string:
      return quote(e.text);
    case ExprKind::vector_selector:
      return selector_text(e) + offset;
    case ExprKind::matrix_selector:
      return selector_text(e) + "[" + format_duration(e.range_ms) + "]" + offset;
    case ExprKind::subquery:
      return to_string(*e.args[0]) + "[" + format_duration(e.range_ms) + ":" +
             (e.step_ms != 0 ? format_duration(e.step_ms) : "") + "]" + offset;
    case ExprKind::call: {
      std::string out = e.text + "(";
      for (std::size_t i = 0; i < e.args.size(); ++i) {
        if (i > 0) out += ", ";
        out += to_string(*e.args[i]);
      }
      return out + ")";
    }
    case ExprKind::aggregate: {
      std::string out = e.text;
      if (!e.grouping.empty() || e.without) {
        out += (e.without ? " without " : " by ") + label_list(e.grouping) + " ";
      }
      out += "(";
      for (std::size_t i = 0; i < e.args.size(); ++i) {
        if (i > 0) out += ", ";
        out += to_string(*e.args[i]);
      }
      return out + ")";
    }
    case ExprKind::binary: {
      std::string out = to_string(*e.args[0]) + " " + to_string(e.op);
      if (e.return_bool) out += " bool";
      const bool set_op = is_set_operator(e.op);
      if (e.matching.on || !e.matching.labels.empty()) {
        out += (e.matching.on ? " on" : " ignoring") + label_list(e.matching.labels);
      }
      if (!set_op && e.matching.card == Cardinality::many_to_one) {
        out += " group_left" + label_list(e.matching.include);
      } else if (!set_op && e.matching.card == Cardinality::one_to_many) {
        out += " group_right" + label_list(e.matching.include);
      }
      return out + " " + to_string(*e.args[1]);
    }
    case ExprKind::unary:
      return "-" + to_string(*e.args[0]);
    case ExprKind::paren:
      return "(" + to_string(*e.args[0]) + ")";
  }
  return "";
}

Timestamp max_lookback_ms(const Expr& e) {
  Timestamp own = 0;
  switch (e.kind) {
    case ExprKind::vector_selector:
      own = kLookbackDeltaMs + e.offset_ms;
      break;
    case ExprKind::matrix_selector:
      own = e.range_ms + e.offset_ms;
      break;
    default:
      break;
  }
  Timestamp inner = 0;
  for (const auto& a : e.args) inner = std::max(inner, max_lookback_ms(*a));
  if (e.kind == ExprKind::subquery) own = e.range_ms + e.offset_ms + inner;
  return std::max(own, inner);
}

double subquery_steps(const Expr& e, Timestamp default_step_ms) {
  double inner = 0;
  for (const auto& a : e.args) inner += subquery_steps(*a, default_step_ms);
  if (e.kind != ExprKind::subquery) return inner;
  const Timestamp step = e.step_ms != 0 ? e.step_ms : default_step_ms;
  if (step <= 0) return inner;
  // Steps aligned to multiples of the step in a closed window of `range`: range/step + 1 at
  // most, range/step at least (evaluator.cpp eval_subquery).
  const double steps = std::floor(static_cast<double>(e.range_ms) / static_cast<double>(step));
  return steps * (1 + inner);
}

namespace {

/// The fields of a node besides its lists and operands, as one comparable tuple: the same list
/// serves the structural comparison and the hash, so they cannot drift apart.
auto node_fields(const Expr& e) {
  std::uint64_t number_bits = 0;  // bit for bit: -0 and 0, NaN payloads are not the same text
  std::memcpy(&number_bits, &e.number, sizeof number_bits);
  return std::tuple{static_cast<std::uint64_t>(e.kind),
                    number_bits,
                    std::string_view(e.text),
                    static_cast<std::uint64_t>(e.range_ms),
                    static_cast<std::uint64_t>(e.step_ms),
                    static_cast<std::uint64_t>(e.offset_ms),
                    static_cast<std::uint64_t>(e.at),
                    static_cast<std::uint64_t>(e.at_ms),
                    static_cast<std::uint64_t>(e.without),
                    static_cast<std::uint64_t>(e.op),
                    static_cast<std::uint64_t>(e.return_bool),
                    static_cast<std::uint64_t>(e.matching.card),
                    static_cast<std::uint64_t>(e.matching.on)};
}

/// The node's label lists.
auto node_lists(const Expr& e) {
  return std::tie(e.grouping, e.matching.labels, e.matching.include);
}

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  return hash_combine(h, v);
}

std::uint64_t mix(std::uint64_t h, std::string_view s) {
  return hash_combine(h, std::hash<std::string_view>{}(s));
}

std::uint64_t mix(std::uint64_t h, const std::vector<std::string>& list) {
  h = mix(h, list.size());
  for (const auto& s : list) h = mix(h, s);
  return h;
}

/// Whether `a` and `b` are the same expression, field by field (what their hashes cover).
bool same_structure(const Expr& a, const Expr& b) {
  const auto same_matcher = [](const LabelMatcher& l, const LabelMatcher& r) {
    return l.name == r.name && l.op == r.op && l.value == r.value;
  };
  if (node_fields(a) != node_fields(b) || node_lists(a) != node_lists(b) ||
      !std::equal(a.matchers.begin(), a.matchers.end(), b.matchers.begin(), b.matchers.end(),
                  same_matcher) ||
      a.args.size() != b.args.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.args.size(); ++i) {
    if (!same_structure(*a.args[i], *b.args[i])) return false;
  }
  return true;
}

/// A hash of the subtree at `e`, computed bottom-up so the whole tree costs one pass; calls,
/// aggregations and binary operators outside subqueries are added to `candidates` with theirs.
std::uint64_t hash_subtree(Expr& e, bool inside_subquery,
                           std::vector<std::pair<std::uint64_t, Expr*>>& candidates) {
  std::uint64_t h = 0;
  std::apply([&h](const auto&... field) { ((h = mix(h, field)), ...); }, node_fields(e));
  std::apply([&h](const auto&... list) { ((h = mix(h, list)), ...); }, node_lists(e));
  h = mix(h, e.matchers.size());
  for (const auto& m : e.matchers) {
    h = mix(mix(mix(h, m.name), static_cast<std::uint64_t>(m.op)), m.value);
  }
  const bool below_subquery = inside_subquery || e.kind == ExprKind::subquery;
  for (auto& a : e.args) h = mix(h, hash_subtree(*a, below_subquery, candidates));
  if (!inside_subquery &&
      (e.kind == ExprKind::call || e.kind == ExprKind::aggregate || e.kind == ExprKind::binary)) {
    candidates.emplace_back(h, &e);
  }
  return h;
}

}  // namespace

void mark_repeated_subexpressions(Expr& root) {
  std::vector<std::pair<std::uint64_t, Expr*>> candidates;
  hash_subtree(root, false, candidates);
  // Same hash, then the same structure: a collision of hashes never shares a value.
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  int slots = 0;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    Expr* first = candidates[i].second;
    if (first->repeat_slot >= 0) continue;
    for (std::size_t j = i + 1; j < candidates.size() && candidates[j].first == candidates[i].first;
         ++j) {
      Expr* other = candidates[j].second;
      if (other->repeat_slot >= 0 || !same_structure(*first, *other)) continue;
      if (first->repeat_slot < 0) first->repeat_slot = slots++;
      other->repeat_slot = first->repeat_slot;
    }
  }
}

}  // namespace rdmatop::promql
