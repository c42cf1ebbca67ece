// PromQL expressions (rules/promql): parse, print, and evaluate against a small History, so
// the evaluator sees every tree the parser accepts. A sample budget small enough that no input
// can make one evaluation slow.
#include "fuzz/fuzz_input.h"
#include "rules/history.h"
#include "rules/promql/ast.h"
#include "rules/promql/evaluator.h"
#include "rules/promql/parser.h"

namespace {

const rdmatop::History& history() {
  static const rdmatop::History h = [] {
    using rdmatop::Series;
    using rdmatop::SeriesKind;
    rdmatop::History out(3600 * 1000);
    for (rdmatop::promql::Timestamp t = 0; t <= 600'000; t += 15'000) {
      const double v = static_cast<double>(t) / 1000;
      out.ingest(
          {Series{"x", {{"device", "mlx5_0"}, {"port", "1"}}, SeriesKind::counter, v, 0, 0, "a"},
           Series{
               "x", {{"device", "mlx5_1"}, {"port", "1"}}, SeriesKind::counter, 2 * v, 0, 0, "a"},
           Series{"y", {{"device", "mlx5_0"}}, SeriesKind::gauge, t % 2 ? 1.0 : 0.0, 0, 0, "b"}},
          t);
    }
    return out;
  }();
  return h;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rdmatop::promql;
  const std::string text(rdmatop::fuzz::as_text(data, size));
  auto parsed = parse_expr(text);
  if (!parsed) return 0;
  (void)to_string(*parsed.expr());
  (void)max_lookback_ms(*parsed.expr());
  (void)subquery_steps(*parsed.expr(), 60'000);
  EvalOptions options;
  options.max_samples = 100'000;
  (void)evaluate(*parsed.expr(), history(), 600'000, options);
  (void)parse_series_labels(text);
  return 0;
}
