// render_metrics_text writes the exporter's page without building prometheus-cpp families; it
// must be the page those families serialize to, byte for byte, on every kind of collection.
#include <prometheus/text_serializer.h>

#include <catch2/catch.hpp>
#include <string>

#include "exporters/prometheus/metrics_collectable.h"
#include "simulator/builtin_scenarios.h"
#include "tests/support/probe_samples.h"
#include "tests/unit/simulator/play.h"

using namespace rdmatop;

namespace {

std::string through_families(const ExporterView& view, const MetricsOptions& options) {
  return prometheus::TextSerializer().Serialize(build_metric_families(view, options));
}

std::vector<MetricsOptions> option_sets() {
  std::vector<MetricsOptions> sets(3);
  sets[0].version = "1.2.3";
  sets[1].raw_counters = false;
  RawCounterFilterOptions filter;
  filter.include = ".*(pause|prio).*";
  filter.exclude = ".*tx.*";
  auto made = RawCounterFilter::make(filter);
  REQUIRE(made);
  sets[2].raw_filter = *made;
  return sets;
}

}  // namespace

TEST_CASE("the exporter's text is its families' serialization, on every scenario",
          "[exporter][exposition]") {
  const auto& scenarios = sim::builtin_scenarios();
  REQUIRE(scenarios.errors.empty());
  REQUIRE(scenarios.scenarios.size() > 10);
  const auto sets = option_sets();
  std::size_t pages = 0;
  std::size_t with_findings = 0;
  for (const sim::Scenario& scenario : scenarios.scenarios) {
    // Three ticks: info series, rates against the previous tick, lifetime findings.
    const test::Played played = test::play(scenario, 3);
    REQUIRE_FALSE(played.reports.empty());
    ExporterView view;
    view.report = played.reports.back();
    view.poll.polls = 3;
    view.poll.source_errors = {{{"ethtool", "eth\"0"}, 2}, {{"sysfs", "mlx5_0"}, 0}};
    view.poll.last_poll_end_unix_seconds = 1700000000.25;
    view.process = ProcessMetrics{1.5, 1 << 20, 1 << 24, 7, 1024, 1699999999.0};
    if (!view.report->findings.empty()) ++with_findings;
    for (const MetricsOptions& options : sets) {
      INFO(scenario.name);
      CHECK(render_metrics_text(view, options) == through_families(view, options));
      ++pages;
    }
  }
  CHECK(pages == 3 * scenarios.scenarios.size());
  CHECK(with_findings > 0);  // the findings' families were compared too
}

TEST_CASE("the exporter's text is its families' serialization with probes and without a tick",
          "[exporter][exposition]") {
  ExporterView probed;
  probed.report = std::make_shared<const PublishedTick>(test::two_probe_ticks());
  probed.poll.polls = 2;
  const std::string text = render_metrics_text(probed, MetricsOptions{});
  CHECK(text.find("rdma_probe_rtt_seconds_bucket{") != std::string::npos);
  CHECK(text == through_families(probed, MetricsOptions{}));

  const ExporterView empty;  // before the first collection
  CHECK(render_metrics_text(empty, MetricsOptions{}) == through_families(empty, MetricsOptions{}));
  CHECK(render_metrics_text(empty, MetricsOptions{}, 1 << 16) ==
        through_families(empty, MetricsOptions{}));
}

TEST_CASE("the exporter's text with the last page's line heads is the text with fresh ones",
          "[exporter][exposition]") {
  // One cache per option set, through every scenario's ticks one after another: a scenario's
  // later ticks find their heads kept (the same names, labels and counter names as the tick
  // before), the next scenario's first tick finds other ports, labels and raw maps at the same
  // positions.
  const auto& scenarios = sim::builtin_scenarios();
  REQUIRE(scenarios.errors.empty());
  const auto sets = option_sets();
  std::vector<MetricsLineCache> caches(sets.size());
  std::size_t pages = 0;
  for (const sim::Scenario& scenario : scenarios.scenarios) {
    const test::Played played = test::play(scenario, 3);
    for (const auto& report : played.reports) {
      ExporterView view;
      view.report = report;
      view.poll.polls = 3;
      for (std::size_t i = 0; i < sets.size(); ++i) {
        INFO(scenario.name << ", option set " << i);
        const std::string cached = render_metrics_text(view, sets[i], 0, &caches[i]);
        CHECK(cached == render_metrics_text(view, sets[i]));
        ++pages;
      }
    }
  }
  CHECK(pages >= 3 * 3 * scenarios.scenarios.size());
  // Then pages without a tick: the families of the last one are kept (their buffers) but are
  // not on these pages, not even their HELP and TYPE lines.
  const ExporterView empty;
  for (std::size_t i = 0; i < sets.size(); ++i) {
    CHECK(render_metrics_text(empty, sets[i], 0, &caches[i]) ==
          render_metrics_text(empty, sets[i]));
  }
}

TEST_CASE("the line heads of a raw counter map follow its names, not only its labels",
          "[exporter][exposition]") {
  const auto& scenarios = sim::builtin_scenarios();
  REQUIRE(scenarios.errors.empty());
  const test::Played played = test::play(scenarios.scenarios.front(), 2);
  PublishedTick tick = *played.reports.back();
  REQUIRE_FALSE(tick.snapshot.devices.empty());
  REQUIRE_FALSE(tick.snapshot.devices[0].ports.empty());
  MetricsLineCache cache;
  std::vector<PublishedTick> sequence{tick};
  CounterMap& counters = tick.snapshot.devices[0].ports[0].hw_counters;
  for (auto&& [name, value] : counters) value += 5;  // the same names, other values
  sequence.push_back(tick);
  counters["aaa_first"] = 1;  // a name in front: every other counter's position moves
  sequence.push_back(tick);
  counters.erase("aaa_first");
  const std::string first = counters.begin()->first;
  counters.erase(first);  // one fewer
  sequence.push_back(tick);
  for (std::size_t i = 0; i < sequence.size(); ++i) {
    INFO("tick " << i);
    ExporterView view;
    view.report = std::make_shared<const PublishedTick>(sequence[i]);
    CHECK(render_metrics_text(view, MetricsOptions{}, 0, &cache) ==
          render_metrics_text(view, MetricsOptions{}));
  }
}
