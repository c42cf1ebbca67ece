// PromQL lexer/parser: what parses (and how it prints back), and what fails with a located,
// explained error. Evaluation semantics are checked against promtool in tests/rules/.
#include <catch2/catch.hpp>

#include <string>

#include "rules/promql/lexer.h"
#include "rules/promql/parser.h"

using namespace rdmatop::promql;
namespace promql = rdmatop::promql;

TEST_CASE("promql parser accepts the supported subset", "[rules][promql]") {
  struct Case {
    const char* in;
    const char* printed;
  };
  const Case cases[] = {
      {"rdma_cnp_sent_total", "rdma_cnp_sent_total"},
      {"rate(x{a=\"b\", c!=\"d\", e=~\"f.*\", g!~\"h\"}[5m])",
       "rate(x{a=\"b\", c!=\"d\", e=~\"f.*\", g!~\"h\"}[5m])"},
      {"{__name__=\"x\"}", "x"},
      {"x offset 1h30m", "x offset 1h30m"},
      {"sum by (device, port) (rate(x[1m]))", "sum by (device, port) (rate(x[1m]))"},
      {"sum(rate(x[1m])) without (priority)", "sum without (priority) (rate(x[1m]))"},
      {"topk(3, x)", "topk(3, x)"},
      {"a / on (device) group_left (netdev) b", "a / on(device) group_left(netdev) b"},
      {"a > bool ignoring (direction) b", "a > bool ignoring(direction) b"},
      {"a and on (x) b or c unless d", "a and on(x) b or c unless d"},
      {"-x", "-x"},
      {"-2 ^ 2", "-2 ^ 2"},
      {"max_over_time(rate(x[1m])[5m:30s])", "max_over_time(rate(x[1m])[5m:30s])"},
      {"1e3 + 0x10 + .5 + Inf", "1000 + 16 + 0.5 + +Inf"},
      {"absent(x{a=\"1\"})", "absent(x{a=\"1\"})"},
      {"clamp_min(x, 0)", "clamp_min(x, 0)"},
      {"time() - 3", "time() - 3"},
      {"x # a comment\n + y", "x + y"},
  };
  for (const auto& c : cases) {
    INFO(c.in);
    auto r = parse_expr(c.in);
    REQUIRE(r.ok());
    CHECK(to_string(*r.expr()) == c.printed);
  }
}

TEST_CASE("promql precedence and associativity follow Prometheus", "[rules][promql]") {
  // 2 ^ 3 ^ 2 is right-associative: the root's right operand is the inner power.
  auto r = parse_expr("2 ^ 3 ^ 2");
  REQUIRE(r.ok());
  REQUIRE(r.expr()->kind == ExprKind::binary);
  CHECK(r.expr()->args[0]->kind == ExprKind::number);
  CHECK(r.expr()->args[1]->kind == ExprKind::binary);
  // a - b - c is left-associative.
  auto l = parse_expr("a - b - c");
  REQUIRE(l.ok());
  CHECK(l.expr()->args[0]->kind == ExprKind::binary);
  // `or` binds loosest: a and b or c == (a and b) or c
  auto o = parse_expr("a and b or c");
  REQUIRE(o.ok());
  CHECK(o.expr()->op == BinaryOp::lor);
}

TEST_CASE("promql parser rejects bad input with a located error", "[rules][promql]") {
  struct Case {
    std::string in;
    std::size_t offset;
    const char* message_part;
  };
  const Case cases[] = {
      {"", 0, "unexpected end of input"},
      {"rate(x)", 5, "expected type range vector in call to function \"rate\", got instant vector"},
      {"nosuch(x)", 0, "unknown function with name \"nosuch\""},
      {"x{a=\"b\"", 7, "expected \",\" or \"}\""},
      {"x{a=\"b}", 4, "unterminated quoted string"},
      {"x[5x]", 2, "bad number or duration syntax"},
      {"1 > 2", 2, "comparisons between scalars must use BOOL modifier"},
      {"x + on(a) 1", 2, "vector matching only allowed between instant vectors"},
      {"1 and x", 2, "set operator \"and\" not allowed in binary scalar expression"},
      {"x and on(a) group_left y", 2, "no grouping allowed for \"and\" operation"},
      {"x + bool y", 2, "bool modifier can only be used on comparison operators"},
      {"(x)[5m]", 3, "ranges only allowed for vector selectors"},
      {"x{a=~\"(\"}", 5, "error parsing regexp"},
      {"{a=\"\"}", 0, "at least one non-empty matcher"},
      {"sum(x, y)", 0, "wrong number of arguments for aggregate expression"},
      {"sum(x) @ 100", 7, "@ modifier must be preceded by an instant vector selector"},
      {"x @ 1 @ 2", 6, "@ <timestamp> may not be set multiple times"},
      {"x @ Inf", 4, "timestamp out of bounds for @ modifier"},
      {"label_join(x, \"a\")", 0, "expected at least 3 argument(s) in call to \"label_join\""},
      {"round(x, 1, 2)", 0, "expected at most 2 argument(s) in call to \"round\""},
      {"x \xc3\xa9", 2, "outside ASCII"},
      {"x y", 2, "expected an operator or end of input"},
      {"rate(x[5m]) offset", 18, "expected duration"},
      {"abs(x, y)", 0, "expected 1 argument(s) in call to \"abs\", got 2"},
      {"x[0s]", 2, "range must be positive"},
      {"x{a=\"\\q\"}", 6, "unknown escape sequence"},
  };
  for (const auto& c : cases) {
    INFO(c.in);
    auto r = parse_expr(c.in);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().offset == c.offset);
    CHECK_THAT(r.error().message, Catch::Contains(c.message_part));
  }
}

TEST_CASE("promql durations parse and print like model.Duration", "[rules][promql]") {
  CHECK(*promql::parse_duration("5m") == 300000);
  CHECK(*promql::parse_duration("1h30m") == 5400000);
  CHECK(*promql::parse_duration("100ms") == 100);
  CHECK(*promql::parse_duration("1d") == 86400000);
  CHECK_FALSE(promql::parse_duration("").ok());
  CHECK_FALSE(promql::parse_duration("5").ok());
  CHECK_FALSE(promql::parse_duration("30m1h").ok());  // units must be largest first
  CHECK_FALSE(promql::parse_duration("1x").ok());
  CHECK_FALSE(promql::parse_duration("99999999999999999999s").ok());
  CHECK(format_duration(0) == "0s");
  CHECK(format_duration(90000) == "1m30s");
  CHECK(format_duration(7776000000) == "90d");  // weeks only when exact
  CHECK(format_duration(7 * 86400000LL) == "1w");
}

TEST_CASE("series descriptions parse with equality matchers only", "[rules][promql]") {
  auto l = parse_series_labels("x{b=\"2\",a=\"1\"}");
  REQUIRE(l.ok());
  REQUIRE(l->size() == 3);
  CHECK((*l)[0].first == "__name__");
  CHECK((*l)[1] == std::pair<std::string, std::string>{"a", "1"});
  CHECK(parse_series_labels("{}")->empty());
  CHECK_FALSE(parse_series_labels("x{a=~\"1\"}").ok());
  CHECK_FALSE(parse_series_labels("rate(x[1m])").ok());
  CHECK_FALSE(parse_series_labels("x{").ok());
}

TEST_CASE("keywords are case-insensitive, function names are not", "[rules][promql]") {
  auto agg = parse_expr("SUM BY (Job) (x) AND ON (a) y");
  REQUIRE(agg.ok());
  CHECK(to_string(*agg.expr()) == "sum by (Job) (x) and on(a) y");
  auto off = parse_expr("x OFFSET 5m @ 10");
  REQUIRE(off.ok());
  CHECK(off.expr()->offset_ms == 300000);
  CHECK(off.expr()->at == AtKind::timestamp);
  CHECK(off.expr()->at_ms == 10000);
  auto end = parse_expr("rate(x[5m] @ END())");
  REQUIRE(end.ok());
  CHECK(end.expr()->args[0]->at == AtKind::end);
  CHECK_FALSE(parse_expr("RATE(x[5m])").ok());
}

TEST_CASE("regular expressions are RE2, anchored like Prometheus", "[rules][promql]") {
  auto ci = parse_expr("x{a=~\"(?i:PRO).*\"}");
  REQUIRE(ci.ok());
  const LabelMatcher& m = ci.expr()->matchers.back();
  CHECK(m.matches("production"));
  CHECK_FALSE(m.matches("xproduction"));  // anchored at the start
  auto tail = parse_expr("x{a=~\"a|b\"}");
  REQUIRE(tail.ok());
  CHECK_FALSE(tail.expr()->matchers.back().matches("ab"));  // the alternation is grouped
  CHECK(parse_expr("x{a=~\"\\\\pL+\"}").ok());
  auto bad = parse_expr("x{a=~\"(\"}");
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.error().message, Catch::Contains("missing )"));
}
