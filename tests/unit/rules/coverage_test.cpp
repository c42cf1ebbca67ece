// Coverage: which input selectors a rule needs, and which of them match nothing on this host.
// A rule that cannot run must say so; a rule whose alternative (`or`) or exception (`unless`)
// is missing can still run.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "rules/coverage.h"
#include "rules/history.h"
#include "rules/promql/parser.h"

using namespace rdmatop;

namespace {

constexpr promql::Timestamp kNow = 1'700'000'000'000;

History host_with(const std::vector<std::string>& metrics) {
  History history;
  std::vector<Series> series;
  for (const auto& name : metrics) {
    series.push_back(Series{name,
                            {{"device", "mlx5_0"}, {"direction", "tx"}, {"port", "1"}},
                            SeriesKind::counter,
                            1,
                            0,
                            0,
                            ""});
  }
  history.ingest(series, kNow);
  return history;
}

std::vector<std::string> missing(const std::string& expr, const History& history,
                                 promql::Timestamp at = kNow) {
  auto parsed = promql::parse_expr(expr);
  REQUIRE(parsed.ok());
  std::vector<std::string> out;
  for (const promql::Expr* sel : missing_inputs(*parsed.expr(), history, at)) {
    out.push_back(sel->text);
  }
  return out;
}

}  // namespace

TEST_CASE("coverage: both sides of arithmetic and `and` are needed", "[coverage]") {
  const History h = host_with({"a_total"});
  CHECK(missing("rate(a_total[5m]) / rate(b_total[5m]) > 0", h) ==
        std::vector<std::string>{"b_total"});
  CHECK(missing("a_total > 0 and on (device) b_total == 1", h) ==
        std::vector<std::string>{"b_total"});
  CHECK(missing("sum by (device) (rate(a_total[1m]))", h).empty());
}

TEST_CASE("coverage: either side of `or`, the left of `unless`, nothing in absent()",
          "[coverage]") {
  const History h = host_with({"a_total"});
  CHECK(missing("b_total > 0 or a_total > 0", h).empty());
  CHECK(missing("b_total > 0 or c_total > 0", h) == std::vector<std::string>{"b_total", "c_total"});
  CHECK(missing("a_total > 0 unless b_total", h).empty());
  CHECK(missing("b_total > 0 unless a_total", h) == std::vector<std::string>{"b_total"});
  CHECK(missing("absent(b_total)", h).empty());
}

TEST_CASE("coverage: label matchers count, and a stale series is gone", "[coverage]") {
  History h = host_with({"a_total"});
  CHECK(missing("a_total{direction=\"tx\"}", h).empty());
  CHECK(missing("a_total{direction=\"rx\"}", h) == std::vector<std::string>{"a_total"});
  // The next tick without the series writes a staleness marker: it no longer counts.
  h.ingest(std::vector<Series>{}, kNow + 1000);
  CHECK(missing("a_total", h, kNow + 1000) == std::vector<std::string>{"a_total"});
  CHECK(missing("a_total", h, kNow).empty());  // as it was before that tick
}

TEST_CASE("coverage of rule groups: evaluable flag and missing metric names", "[coverage]") {
  const History h = host_with({"a_total"});
  auto load = parse_rule_file(R"(groups:
  - name: g
    rules:
      - alert: Runs
        expr: rate(a_total[5m]) > 0
      - alert: Blind
        expr: rate(b_total{direction="tx"}[5m]) / rate(c_total[5m]) > 0
      - record: r
        expr: b_total
)",
                              "t.yaml");
  REQUIRE(load.errors.empty());
  const auto coverage = rule_coverage(load.groups, {}, h, kNow);
  REQUIRE(coverage.size() == 2);  // recording rules have no coverage entry
  CHECK(coverage[0].rule == "Runs");
  CHECK(coverage[0].evaluable);
  CHECK(coverage[1].rule == "Blind");
  CHECK_FALSE(coverage[1].evaluable);
  CHECK(coverage[1].missing == std::vector<std::string>{"b_total{direction=\"tx\"}", "c_total"});
  CHECK(coverage[1].missing_metrics == std::vector<std::string>{"b_total", "c_total"});
}
