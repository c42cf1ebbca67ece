// A subexpression written twice in one rule is evaluated once per evaluation
// (Expr::repeat_slot). These cases hold which nodes share a value, that sharing changes no
// result, and that the sample budget still counts every occurrence, as Prometheus loads them.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "rules/history.h"
#include "rules/promql/evaluator.h"
#include "rules/promql/parser.h"
#include "rules/promql/value.h"

namespace promql = rdmatop::promql;

// Named, not anonymous: unity builds join this file with its neighbours.
namespace repeated_subexpressions_test {

void collect_slots(const promql::Expr& e, std::vector<std::pair<std::string, int>>& out) {
  if (e.repeat_slot >= 0) out.emplace_back(promql::to_string(e), e.repeat_slot);
  for (const auto& a : e.args) collect_slots(*a, out);
}

void forget_slots(promql::Expr& e) {
  e.repeat_slot = -1;
  for (auto& a : e.args) forget_slots(*a);
}

/// A history of two metrics over 4 ports x 2 directions, counters growing unevenly.
rdmatop::History sample_history() {
  rdmatop::History h(3'600'000);
  for (promql::Timestamp t = 0; t <= 600'000; t += 1000) {
    for (const char* name : {"x_total", "y_total"}) {
      for (int port = 1; port <= 4; ++port) {
        for (const char* dir : {"rx", "tx"}) {
          rdmatop::Labels l = {
              {promql::kMetricNameLabel, name}, {"direction", dir}, {"port", std::to_string(port)}};
          const double v = static_cast<double>(t / 1000) * port * (dir[0] == 'r' ? 3.0 : 1.0) +
                           (name[0] == 'y' ? 7 : 0);
          h.append(l, t, v);
        }
      }
    }
  }
  return h;
}

promql::Vector sorted(promql::Vector v) {
  std::sort(v.begin(), v.end(),
            [](const promql::Sample& a, const promql::Sample& b) { return a.labels < b.labels; });
  return v;
}

bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

}  // namespace repeated_subexpressions_test

namespace rst = repeated_subexpressions_test;

TEST_CASE("repeated subexpressions share a slot, except inside subqueries",
          "[rules][promql][repeated]") {
  auto p = promql::parse_expr(
      "sum by (port) (rate(x_total[5m])) / on (port) sum by (port) (rate(x_total[5m]))"
      " + on (port) sum by (port) (rate(y_total[5m]))"
      " + on (port) max_over_time(sum by (port) (rate(x_total[5m]))[2m:1m])");
  REQUIRE(p.ok());
  std::vector<std::pair<std::string, int>> slots;
  rst::collect_slots(*p.expr(), slots);
  // Twice outside the subquery: the sum and the rate inside it; y's are written once.
  REQUIRE(slots.size() == 4);
  std::sort(slots.begin(), slots.end());
  CHECK(slots[0].first == "rate(x_total[5m])");
  CHECK(slots[1].first == "rate(x_total[5m])");
  CHECK(slots[0].second == slots[1].second);
  CHECK(slots[2].first == "sum by (port) (rate(x_total[5m]))");
  CHECK(slots[3].first == "sum by (port) (rate(x_total[5m]))");
  CHECK(slots[2].second == slots[3].second);
  CHECK(slots[0].second != slots[2].second);

  // Written once: nothing shared. A number or a selector is not worth keeping.
  auto once = promql::parse_expr("sum(rate(x_total[5m])) + x_total + x_total + 1 + 1");
  REQUIRE(once.ok());
  slots.clear();
  rst::collect_slots(*once.expr(), slots);
  CHECK(slots.empty());
}

TEST_CASE("sharing a repeated subexpression changes no result", "[rules][promql][repeated]") {
  const rdmatop::History h = rst::sample_history();
  // Each consumer below changes what it receives (moves, name drops, relabels, sorts), so a
  // shared value handed out twice without a copy would show up in the second use.
  const char* const exprs[] = {
      "sum by (port) (rate(x_total[5m])) / on (port) sum by (port) (rate(x_total[5m]))",
      "-rate(x_total[1m]) + rate(x_total[1m]) * rate(x_total[1m])",
      "label_replace(rate(x_total[1m]), \"port\", \"9\", \"\", \"\") or rate(x_total[1m])",
      "topk(2, rate(x_total[1m])) + ignoring (direction) group_left topk(2, rate(x_total[1m]))",
      "(rate(x_total[5m]) > 1) and on (port) (rate(x_total[5m]) > 1) unless on (port, direction)"
      " (rate(y_total[5m]) > 100)",
      "count_values(\"v\", rate(x_total[1m])) + count_values(\"v\", rate(x_total[1m]))",
      "sum(x_total) - sum(x_total) + sum(x_total @ 300) - sum(x_total offset 1m)",
      "max_over_time(rate(x_total[1m])[2m:30s]) - rate(x_total[1m])",
  };
  for (const char* text : exprs) {
    INFO(text);
    auto shared = promql::parse_expr(text);
    auto plain = promql::parse_expr(text);
    REQUIRE(shared.ok());
    REQUIRE(plain.ok());
    rst::forget_slots(*plain.expr());
    for (const promql::Timestamp ts : {promql::Timestamp{300'000}, promql::Timestamp{600'000}}) {
      const auto a = promql::evaluate(*shared.expr(), h, ts);
      const auto b = promql::evaluate(*plain.expr(), h, ts);
      REQUIRE(a.ok() == b.ok());
      if (!a.ok()) {
        CHECK(a.error().message == b.error().message);
        continue;
      }
      const promql::Vector va = rst::sorted(a->vector);
      const promql::Vector vb = rst::sorted(b->vector);
      REQUIRE(va.size() == vb.size());
      CHECK(!va.empty());
      for (std::size_t i = 0; i < va.size(); ++i) {
        CHECK(va[i].labels == vb[i].labels);
        CHECK(rst::same_bits(va[i].value, vb[i].value));
      }
    }
  }
}

TEST_CASE("the sample budget counts every occurrence of a repeated subexpression",
          "[rules][promql][repeated]") {
  const rdmatop::History h = rst::sample_history();
  // count(x_total) loads 8 samples; written twice, 16, as Prometheus loads it twice.
  auto p = promql::parse_expr("count(x_total) + count(x_total)");
  REQUIRE(p.ok());
  promql::EvalOptions options;
  options.max_samples = 16;
  const auto fits = promql::evaluate(*p.expr(), h, 600'000, options);
  REQUIRE(fits.ok());
  REQUIRE(fits->vector.size() == 1);
  CHECK(fits->vector[0].value == 16);
  options.max_samples = 15;
  const auto over = promql::evaluate(*p.expr(), h, 600'000, options);
  REQUIRE_FALSE(over.ok());
  CHECK(over.error().code == promql::kSampleBudgetExceeded);
}
