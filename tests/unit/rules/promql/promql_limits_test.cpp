// #22 item 3: PromQL that is valid but hostile. Deep nesting overflowed the parser's stack,
// a chain of binary operators parsed in quadratic time, and a subquery of a huge range/step
// ratio passed `rules check` and then took all memory. Each now has a limit with a clear error.
#include <time.h>

#include <catch2/catch.hpp>
#include <string>

#include "rules/engine.h"
#include "rules/history.h"
#include "rules/promql/evaluator.h"
#include "rules/promql/parser.h"
#include "rules/rule_file.h"

namespace rdmatop {
namespace {

using promql::parse_expr;

std::string nested_parens(std::size_t depth) {
  return std::string(depth, '(') + "1" + std::string(depth, ')');
}

std::string chain(std::size_t terms, const char* op = " + ") {
  std::string out = "x";
  for (std::size_t i = 1; i < terms; ++i) out += std::string(op) + "x";
  return out;
}

double cpu_seconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

TEST_CASE("PromQL nesting is limited with a clear error, not a stack overflow",
          "[rules][promql][limits]") {
  // 5,300 parentheses overflowed the parser's stack (promtool accepts them).
  for (const std::size_t depth : {5300u, 100000u}) {
    INFO(depth << " parentheses");
    const auto r = parse_expr(nested_parens(depth));
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message, Catch::Contains("nests deeper than 256 levels"));
  }
  const auto unary = parse_expr(std::string(50000, '-') + "1");
  REQUIRE_FALSE(unary.ok());
  CHECK_THAT(unary.error().message, Catch::Contains("nests deeper than"));
  const auto calls = parse_expr([] {
    std::string s;
    for (int i = 0; i < 3000; ++i) s += "abs(";
    return s + "x" + std::string(3000, ')');
  }());
  REQUIRE_FALSE(calls.ok());
  CHECK_THAT(calls.error().message, Catch::Contains("nests deeper than"));
  // A chain's tree is as high as it is long: the evaluator and the destructor recurse that deep.
  const auto long_chain = parse_expr(chain(5000));
  REQUIRE_FALSE(long_chain.ok());
  CHECK_THAT(long_chain.error().message, Catch::Contains("nests deeper than"));

  // Just under the limit parses, evaluates and prints (the recursion it needs fits the stack,
  // also in the ASan build, where 1,000 levels did not).
  auto deep = parse_expr(nested_parens(250));
  REQUIRE(deep.ok());
  History empty;
  const auto value = promql::evaluate(*deep.expr(), empty, 0);
  REQUIRE(value.ok());
  CHECK(value->scalar == 1);
  CHECK(promql::to_string(*deep.expr()).size() == 2 * 250 + 1);
  auto long_ok = parse_expr(chain(250));
  REQUIRE(long_ok.ok());
  CHECK(promql::evaluate(*long_ok.expr(), empty, 0).ok());
}

TEST_CASE("parse time of a chain of binary operators is linear in its length",
          "[rules][promql][limits]") {
  // The same number of operators, once as one chain of 240 and once as 16 parenthesized chains
  // of 15: a parser that recomputes each operand's type walks the whole chain below it, so the
  // long chain took the old parser 3.6x the CPU time of the short ones (0.17 s vs 0.046 s for
  // 400 parses at -O2); a linear parser does the same work for both. A ratio of CPU times,
  // each over many parses, so a noisy machine cannot fake it.
  const std::string one_chain = chain(240);
  std::string short_chains = "(" + chain(15) + ")";
  for (int i = 1; i < 16; ++i) short_chains += " + (" + chain(15) + ")";
  const auto time_of = [](const std::string& text) {
    const double start = cpu_seconds();
    for (int i = 0; i < 400; ++i) REQUIRE(parse_expr(text).ok());
    return cpu_seconds() - start;
  };
  time_of(one_chain);  // warm up allocator and caches
  const double long_time = time_of(one_chain);
  const double short_time = time_of(short_chains);
  INFO("one chain " << long_time << " s, short chains " << short_time << " s");
  CHECK(long_time < 2 * short_time);
}

TEST_CASE("rules check refuses a subquery whose steps exceed the sample budget",
          "[rules][promql][limits]") {
  const auto load = parse_rule_file(R"(groups:
  - name: g
    rules:
      - alert: Typo
        expr: max_over_time(rdma_cnp_sent_total[1000d:1ms]) > 0
)",
                                    "r.yaml");
  REQUIRE(load.errors.size() == 1);
  CHECK(load.errors[0].line == 5);
  CHECK(load.errors[0].column == 48);  // the subquery's "["
  CHECK_THAT(load.errors[0].message,
             Catch::Contains("subqueries take 86400000000 evaluation steps") &&
                 Catch::Contains("more than the sample budget of 50000000"));
  // Nested subqueries multiply; the group interval is the step of a subquery without one.
  const auto nested = parse_rule_file(R"(groups:
  - name: g
    interval: 1s
    rules:
      - record: r
        expr: max_over_time(max_over_time(x[1d:])[1d:1m])
)",
                                      "n.yaml");
  REQUIRE(nested.errors.size() == 1);
  CHECK_THAT(nested.errors[0].message, Catch::Contains("subqueries take 124417440 evaluation"));
  // An ordinary subquery passes.
  CHECK(parse_rule_file(R"(groups:
  - name: g
    rules:
      - record: r
        expr: max_over_time(rate(x[1m])[1h:30s])
)",
                        "ok.yaml")
            .errors.empty());
}

TEST_CASE("a rule over the sample budget at run time is disabled with a clear error",
          "[rules][promql][limits]") {
  const auto load = parse_rule_file(R"(groups:
  - name: g
    rules:
      - record: big
        expr: count_over_time(x[1h])
      - record: fine
        expr: count(x)
)",
                                    "r.yaml");
  REQUIRE(load.errors.empty());
  History history(2 * 3600 * 1000);
  for (promql::Timestamp t = 0; t <= 600'000; t += 1000) {
    history.ingest({Series{"x", {{"device", "d"}}, SeriesKind::gauge, 1, 0, 0, "test"}}, t);
  }
  EngineOptions options;
  options.max_samples = 100;  // 601 samples in the range
  RuleEngine engine(load.groups, options);
  for (int tick = 0; tick < 2; ++tick) {
    INFO("tick " << tick);
    const auto errors = engine.evaluate(history, 600'000 + tick * 60'000);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].rule == "big");
    CHECK_THAT(errors[0].message,
               Catch::StartsWith("rule disabled: a range selector exceeds the sample budget "
                                 "of 100 samples per evaluation"));
  }
  // The other rule still ran.
  const auto fine =
      history.select({{promql::kMetricNameLabel, promql::MatchOp::equal, "fine", {}}});
  REQUIRE(fine.size() == 1);

  // A subquery of many empty steps is refused before it runs them.
  auto steps = parse_expr("max_over_time(absent_series[1000d:1ms])");
  REQUIRE(steps.ok());
  const auto v = promql::evaluate(*steps.expr(), history, 600'000);
  REQUIRE_FALSE(v.ok());
  CHECK(v.error().code == promql::kSampleBudgetExceeded);
  CHECK_THAT(v.error().message, Catch::Contains("a subquery's steps exceeds the sample budget"));
}

}  // namespace
}  // namespace rdmatop
