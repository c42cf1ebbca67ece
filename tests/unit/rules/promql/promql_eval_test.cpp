// Evaluator, range functions and History: cases whose results follow from the definitions
// (exact window coverage, resets, staleness). Cross-checks with promtool are in tests/rules/.
#include <catch2/catch.hpp>

#include <cmath>

#include "rules/history.h"
#include "rules/promql/evaluator.h"
#include "rules/promql/functions.h"
#include "rules/promql/parser.h"
#include "rules/promql/value.h"

using namespace rdmatop;
using namespace rdmatop::promql;

namespace {

Labels labels_of(const char* name, std::initializer_list<std::pair<const char*, const char*>> kv) {
  Labels l;
  set_label(l, kMetricNameLabel, name);
  for (const auto& [k, v] : kv) set_label(l, k, v);
  return l;
}

Value eval_at(const char* expr, const History& h, Timestamp ts) {
  auto p = parse_expr(expr);
  REQUIRE(p.ok());
  auto v = evaluate(*p.expr(), h, ts);
  REQUIRE(v.ok());
  return *v;
}

}  // namespace

TEST_CASE("extrapolated_rate: exact coverage, resets, edges", "[rules][promql]") {
  const std::vector<Point> linear = {{0, 0}, {15000, 10}, {30000, 20}, {45000, 30}, {60000, 40}};
  // Samples at both window edges: no extrapolation, increase is the plain difference.
  CHECK(*extrapolated_rate(linear, 0, 60000, true, false) == 40);
  CHECK(*extrapolated_rate(linear, 0, 60000, true, true) == Approx(40.0 / 60));
  // A reset inside the window adds the value before the reset (a counter restarts at 0).
  const std::vector<Point> reset = {{0, 100}, {15000, 110}, {30000, 5}, {45000, 15}, {60000, 25}};
  CHECK(*extrapolated_rate(reset, 0, 60000, true, false) == 35);
  // delta() does not treat decreases as resets.
  CHECK(*extrapolated_rate(reset, 0, 60000, false, false) == -75);
  // Fewer than two samples: no result.
  CHECK_FALSE(extrapolated_rate({{0, 1}}, 0, 60000, true, true).has_value());
  // A gap to the window start larger than 1.1x the sample interval extrapolates only half an
  // interval: samples at 30s..60s (interval 15s) in [0, 60s] -> (30+7.5)/30 of the increase.
  const std::vector<Point> late = {{30000, 50}, {45000, 60}, {60000, 70}};
  CHECK(*extrapolated_rate(late, 0, 60000, true, false) == Approx(20 * 37.5 / 30));
}

TEST_CASE("instant_value and over_time", "[rules][promql]") {
  const std::vector<Point> p = {{0, 5}, {15000, 3}, {30000, 8}};
  CHECK(*instant_value(p, false) == 5);                // idelta
  CHECK(*instant_value(p, true) == Approx(5.0 / 15));  // irate
  const std::vector<Point> r = {{0, 9}, {15000, 2}};
  CHECK(*instant_value(r, true) == Approx(2.0 / 15));  // irate after a reset
  CHECK(*over_time("resets", p, 0) == 1);
  CHECK(*over_time("changes", p, 0) == 2);
  CHECK(*over_time("sum_over_time", p, 0) == 16);
  CHECK(*over_time("min_over_time", p, 0) == 3);
  CHECK(*over_time("max_over_time", p, 0) == 8);
  CHECK(*over_time("count_over_time", p, 0) == 3);
  CHECK(*over_time("last_over_time", p, 0) == 8);
  CHECK(*over_time("quantile_over_time", p, 0.5) == 5);
  CHECK_FALSE(over_time("sum_over_time", {}, 0).has_value());
}

TEST_CASE("History marks vanished series stale and prunes old samples", "[rules][history]") {
  History h(10 * 60 * 1000);
  Series a{"rdma_x_total", {{"device", "d0"}}, SeriesKind::counter, 1, 0, 0, ""};
  Series b{"rdma_x_total", {{"device", "d1"}}, SeriesKind::counter, 2, 0, 0, ""};
  h.ingest({a, b}, 0);
  CHECK(eval_at("rdma_x_total", h, 0).vector.size() == 2);
  // d1 disappears: Prometheus-style staleness hides it at once, not after 5m of lookback.
  a.value = 3;
  h.ingest({a}, 15000);
  auto v = eval_at("rdma_x_total", h, 15000);
  REQUIRE(v.vector.size() == 1);
  CHECK(label_value(v.vector[0].labels, "device") == "d0");
  CHECK(v.vector[0].value == 3);
  // Before the staleness marker it was still visible.
  CHECK(eval_at("rdma_x_total", h, 14000).vector.size() == 2);
  // The stale marker is not a sample for range functions.
  CHECK(eval_at("count_over_time(rdma_x_total{device=\"d1\"}[1m])", h, 15000).vector[0].value == 1);
  // Older than the retention: gone.
  h.ingest({a}, 11 * 60 * 1000);
  CHECK(h.series_count() == 1);
}

TEST_CASE("evaluator reports many-to-many and duplicate label sets", "[rules][promql]") {
  History h;
  h.append(labels_of("a", {{"x", "1"}, {"y", "1"}}), 0, 1);
  h.append(labels_of("a", {{"x", "1"}, {"y", "2"}}), 0, 2);
  h.append(labels_of("b", {{"x", "1"}}), 0, 3);
  h.append(labels_of("c", {{"x", "1"}, {"y", "1"}}), 0, 4);
  auto many = parse_expr("b + on(x) a");
  REQUIRE(many.ok());
  auto r = evaluate(*many.expr(), h, 0);
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.error().message, Catch::Contains("many-to-many matching not allowed"));
  // With group_right the "many" side is allowed.
  CHECK(eval_at("b + on(x) group_right a", h, 0).vector.size() == 2);
  auto dup = parse_expr("abs({__name__=~\"a|c\", y=\"1\"})");
  REQUIRE(dup.ok());
  auto d = evaluate(*dup.expr(), h, 0);
  REQUIRE_FALSE(d.ok());
  CHECK_THAT(d.error().message, Catch::Contains("same labelset"));
}

TEST_CASE("float formatting matches Go", "[rules][promql]") {
  CHECK(format_float(1) == "1");
  CHECK(format_float(0.5) == "0.5");
  CHECK(format_float(1e21) == "1e+21");
  CHECK(format_float(123456789) == "123456789");
  CHECK(format_float(0.0001) == "0.0001");
  CHECK(format_float(0.00001) == "1e-05");
  CHECK(format_float(-2.5) == "-2.5");
  CHECK(format_float(std::nan("")) == "NaN");
  CHECK(format_float_exp(40) == "4E+01");
  CHECK(format_float_exp(2.0 / 3) == "6.666666666666666E-01");
  CHECK(is_stale_nan(stale_nan()));
  CHECK_FALSE(is_stale_nan(std::nan("")));
}

TEST_CASE("bucket_quantile interpolates inside the bucket, as Prometheus", "[rules][promql]") {
  // 10 observations <= 1, 20 <= 2, 40 in all: the median (rank 20) is the top of bucket 2,
  // q=0.75 (rank 30) is halfway through the +Inf bucket's predecessor range -> 2.
  const std::vector<Bucket> b = {{2, 20}, {1, 10}, {INFINITY, 40}};
  CHECK(bucket_quantile(0.5, b) == 2);
  CHECK(bucket_quantile(0.25, b) == 1);
  CHECK(bucket_quantile(0.375, b) == 1.5);
  CHECK(bucket_quantile(0.75, b) == 2);  // in the +Inf bucket: the highest finite bound
  CHECK(std::isnan(bucket_quantile(0.5, {{1, 10}, {2, 20}})));  // no +Inf bucket
  CHECK(bucket_quantile(-1, b) == -INFINITY);
  // Non-monotonic counts are made monotonic before the search.
  CHECK(bucket_quantile(0.5, {{1, 10}, {2, 5}, {INFINITY, 20}}) == 1);
}

TEST_CASE("avg and avg_over_time do not overflow near the float limits", "[rules][promql]") {
  const double big = 1.7e308;
  const std::vector<Point> p = {{0, big}, {1000, big}, {2000, big}};
  CHECK(*over_time("avg_over_time", p, 0) == Approx(big));
  CHECK(std::isinf(*over_time("sum_over_time", p, 0)));
  History h(3600 * 1000);
  h.append(labels_of("m", {{"i", "0"}}), 0, big);
  h.append(labels_of("m", {{"i", "1"}}), 0, big);
  CHECK(eval_at("avg(m)", h, 0).vector.at(0).value == Approx(big));
  CHECK(std::isinf(eval_at("sum(m)", h, 0).vector.at(0).value));
}

TEST_CASE("@ reads at its own time, offset relative to it", "[rules][promql]") {
  History h(24 * 3600 * 1000);
  for (int k = 0; k <= 100; ++k) h.append(labels_of("m", {}), k * 10000, k);
  CHECK(eval_at("m @ 100", h, 10000).vector.at(0).value == 10);
  CHECK(eval_at("m @ 100 offset 50s", h, 10000).vector.at(0).value == 5);
  CHECK(eval_at("m @ end()", h, 300000).vector.at(0).value == 30);
  CHECK(eval_at("timestamp(m @ 200)", h, 0).vector.at(0).value == 200);
  CHECK(eval_at("sum_over_time(m[100s] @ 100)", h, 0).vector.at(0).value == 55);
}

TEST_CASE("label_replace expands Go templates with RE2 groups", "[rules][promql]") {
  History h(3600 * 1000);
  h.append(labels_of("m", {{"src", "source-value-10"}}), 0, 1);
  auto v = eval_at(
      "label_replace(m, \"dst\", \"${name}-$1x-$2\", \"src\", \"(?P<name>.*)-value-(\\\\d+)\")", h,
      0);
  // $1x names the group "1x", which does not exist: "" (Go's Regexp.Expand).
  CHECK(label_value(v.vector.at(0).labels, "dst") == "source--10");
  auto del = eval_at("label_replace(m, \"src\", \"\", \"src\", \".*\")", h, 0);
  CHECK(label_value(del.vector.at(0).labels, "src").empty());
}

TEST_CASE("binary operators match label values containing '\",' exactly", "[rules][promql]") {
  // A key string joining unescaped values reads {a="x",b="y"} for both series.
  History h;
  h.append(labels_of("lhs", {{"a", "x\",b=\"y"}}), 1000, 1);
  h.append(labels_of("rhs", {{"a", "x"}, {"b", "y"}}), 1000, 2);
  CHECK(eval_at("lhs + on(a, b) rhs", h, 1000).vector.empty());
  CHECK(eval_at("lhs and on(a, b) rhs", h, 1000).vector.empty());
  CHECK(eval_at("lhs unless on(a, b) rhs", h, 1000).vector.size() == 1);
  CHECK(eval_at("lhs or on(a, b) rhs", h, 1000).vector.size() == 2);
  const Value self = eval_at("lhs + on(a, b) lhs", h, 1000);
  REQUIRE(self.vector.size() == 1);
  CHECK(self.vector[0].value == 2);
}
