// History: the rules' sample store. Staleness markers for series a source stops carrying,
// counter restarts when the raw counter feeding a series changes, pruning past the retention,
// selection in creation order, and lookup by exact labels.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "rules/history.h"

using namespace rdmatop;

namespace {

// Names of their own: the unit binary is a unity build, and other files have a counter().
constexpr promql::Timestamp kT0 = 1'700'000'000'000;

Series x_counter(const std::string& port, double value, const std::string& origin = "hw/x") {
  // Labels deliberately unsorted: the collector's order is not the History's.
  return Series{
      "rdma_x_total", {{"port", port}, {"device", "mlx5_0"}}, SeriesKind::counter, value, 0, 0,
      origin};
}

std::vector<const promql::StoredSeries*> x_all(const History& h) {
  return h.select({{promql::kMetricNameLabel, promql::MatchOp::equal, "rdma_x_total", {}}});
}

const promql::StoredSeries* x_port(const History& h, const std::string& p) {
  return h.find({{promql::kMetricNameLabel, "rdma_x_total"}, {"device", "mlx5_0"}, {"port", p}});
}

}  // namespace

TEST_CASE("History appends one point per tick per series, found by its sorted labels",
          "[rules][history]") {
  History h;
  h.ingest({x_counter("1", 10), x_counter("2", 20)}, kT0);
  h.ingest({x_counter("1", 11), x_counter("2", 21)}, kT0 + 1000);
  REQUIRE(h.series_count() == 2);
  const auto* one = x_port(h, "1");
  REQUIRE(one != nullptr);
  REQUIRE(one->points().size() == 2);
  CHECK(one->points().back().t == kT0 + 1000);
  CHECK(one->points().back().v == 11);
  CHECK(x_port(h, "3") == nullptr);
  CHECK(h.newest() == kT0 + 1000);
}

TEST_CASE("History writes a staleness marker when a source stops carrying a series",
          "[rules][history]") {
  History h;
  h.ingest({x_counter("1", 10), x_counter("2", 20)}, kT0);
  h.ingest({x_counter("1", 11)}, kT0 + 1000);
  const auto* two = x_port(h, "2");
  REQUIRE(two != nullptr);
  REQUIRE(two->points().size() == 2);
  CHECK(promql::is_stale_nan(two->points().back().v));
  // Once: the next tick without it adds nothing more.
  h.ingest({x_counter("1", 12)}, kT0 + 2000);
  CHECK(x_port(h, "2")->points().size() == 2);
  // Another source's ingest does not mark the collector's series stale.
  h.ingest(promql::Vector{}, kT0 + 3000, "recording rules");
  CHECK(!promql::is_stale_nan(x_port(h, "1")->points().back().v));
}

TEST_CASE("History restarts a counter whose raw origin changed", "[rules][history]") {
  History h;
  h.ingest({x_counter("1", 100, "hw/a")}, kT0);
  h.ingest({x_counter("1", 110, "hw/a")}, kT0 + 1000);
  REQUIRE(x_port(h, "1")->points().size() == 2);
  h.ingest({x_counter("1", 5, "ethtool/b")}, kT0 + 2000);
  const auto* one = x_port(h, "1");
  REQUIRE(one->points().size() == 1);
  CHECK(one->points().front().v == 5);
}

TEST_CASE("History restarts a counter whose origin another source changed meanwhile",
          "[rules][history]") {
  // Source a carries the same series as at its last tick, so its arrival record matches; but
  // source b fed the series from another raw counter in between, and a's next sample must not
  // be subtracted from b's.
  History h;
  h.ingest({x_counter("1", 100, "hw/a")}, kT0, "a");
  h.ingest({x_counter("1", 110, "hw/a")}, kT0 + 1000, "a");
  REQUIRE(x_port(h, "1")->points().size() == 2);
  h.ingest({x_counter("1", 5, "ethtool/b")}, kT0 + 2000, "b");
  REQUIRE(x_port(h, "1")->points().size() == 1);
  h.ingest({x_counter("1", 120, "hw/a")}, kT0 + 3000, "a");
  const auto* one = x_port(h, "1");
  REQUIRE(one->points().size() == 1);
  CHECK(one->points().front().v == 120);
  // Unchanged since: the next tick of a appends.
  h.ingest({x_counter("1", 130, "hw/a")}, kT0 + 4000, "a");
  CHECK(x_port(h, "1")->points().size() == 2);
}

TEST_CASE("History prunes past its retention and forgets series left empty", "[rules][history]") {
  History h(10'000);
  h.ingest({x_counter("1", 1), x_counter("2", 2)}, kT0);
  h.ingest({x_counter("1", 2)}, kT0 + 5'000);  // port 2: a staleness marker at +5 s
  h.ingest({x_counter("1", 3)}, kT0 + 16'000);
  REQUIRE(x_port(h, "2") == nullptr);  // its marker (+5 s) is older than 16 - 10 s
  CHECK(h.series_count() == 1);
  CHECK(x_port(h, "1")->points().front().t == kT0 + 16'000);
  // A series that comes back is a new series, selected after the older ones.
  h.ingest({x_counter("2", 7), x_counter("1", 4)}, kT0 + 17'000);
  const auto selected = x_all(h);
  REQUIRE(selected.size() == 2);
  CHECK(label_value(selected[0]->labels, "port") == "1");
  CHECK(label_value(selected[1]->labels, "port") == "2");
  CHECK(selected[1]->points().size() == 1);
}

TEST_CASE("History keeps pruning every series while others are erased and created",
          "[rules][history]") {
  // prune() finds the series to prune from a dense list that an erased series leaves by
  // giving its place to the last one: that one's place must follow it, or a later series is
  // never pruned (or a freed one is).
  History h(5'000);
  promql::Timestamp t = kT0;
  const auto tick = [&](std::initializer_list<const char*> ports) {
    std::vector<Series> carried;
    for (const char* p : ports) carried.push_back(x_counter(p, static_cast<double>(t - kT0)));
    h.ingest(carried, t);
    t += 1000;
  };
  tick({"a", "b", "c", "d"});
  for (int i = 0; i < 8; ++i) tick({"a", "c", "d"});  // b goes stale, then is erased
  REQUIRE(x_port(h, "b") == nullptr);
  for (int i = 0; i < 3; ++i) tick({"a", "c", "d", "e"});  // e is new
  for (int i = 0; i < 8; ++i) tick({"a", "c", "e"});       // d goes stale, then is erased
  REQUIRE(x_port(h, "d") == nullptr);
  for (int i = 0; i < 8; ++i) tick({"a", "c", "e"});
  const promql::Timestamp now = t - 1000;
  for (const char* p : {"a", "c", "e"}) {
    INFO("port " << p);
    const auto* s = x_port(h, p);
    REQUIRE(s != nullptr);
    CHECK(s->points().front().t >= now - 5'000);  // nothing older than the retention
    CHECK(s->points().back().t == now);
  }
  CHECK(h.series_count() == 3);
  for (int i = 0; i < 8; ++i) tick({"a", "c"});  // e goes stale, then is erased
  CHECK(x_port(h, "e") == nullptr);
  CHECK(h.series_count() == 2);
}

TEST_CASE("History selects in creation order, with or without a metric name", "[rules][history]") {
  History h;
  h.ingest({x_counter("9", 1), x_counter("1", 1), x_counter("5", 1)}, kT0);
  std::vector<std::string> named;
  for (const auto* s : x_all(h)) named.push_back(label_value(s->labels, "port"));
  CHECK(named == std::vector<std::string>{"9", "1", "5"});
  std::vector<std::string> unnamed;
  for (const auto* s : h.select({{"device", promql::MatchOp::equal, "mlx5_0", {}}}))
    unnamed.push_back(label_value(s->labels, "port"));
  CHECK(unnamed == named);
  int visited = 0;
  h.for_each_match({{"port", promql::MatchOp::equal, "1", {}}}, [&](const auto& s) {
    ++visited;
    CHECK(label_value(s.labels, "port") == "1");
    return true;
  });
  CHECK(visited == 1);
}

TEST_CASE("History's cached selections follow series that appear and disappear",
          "[rules][history]") {
  History h(10'000);
  h.ingest({x_counter("1", 10)}, kT0);
  REQUIRE(x_all(h).size() == 1);  // cached from here on
  const auto generation = h.series_generation();
  h.ingest({x_counter("1", 11)}, kT0 + 1000);
  CHECK(h.series_generation() == generation);  // same series: the cache holds
  h.ingest({x_counter("1", 12), x_counter("2", 20)}, kT0 + 2000);
  CHECK(h.series_generation() != generation);
  auto both = x_all(h);
  REQUIRE(both.size() == 2);
  CHECK(both[0] == x_port(h, "1"));
  CHECK(both[1] == x_port(h, "2"));
  // Port 2 stops and is pruned past the retention: the selection drops it.
  for (int t = 3; t <= 14; ++t) h.ingest({x_counter("1", 10 + t)}, kT0 + t * 1000);
  REQUIRE(x_port(h, "2") == nullptr);
  auto one = x_all(h);
  REQUIRE(one.size() == 1);
  CHECK(one[0] == x_port(h, "1"));
  int visited = 0;
  h.for_each_match({{promql::kMetricNameLabel, promql::MatchOp::equal, "rdma_x_total", {}}},
                   [&visited](const promql::StoredSeries&) { return ++visited < 10; });
  CHECK(visited == 1);
}

namespace {

// Sorted labels, as the normalizer emits them: these take the same-position path of ingest().
Series y_gauge(const std::string& port, double value) {
  return Series{"rdma_y", {{"device", "mlx5_0"}, {"port", port}}, SeriesKind::gauge, value, 0, 0,
                ""};
}

const promql::StoredSeries* y_port(const History& h, const std::string& p) {
  return h.find({{promql::kMetricNameLabel, "rdma_y"}, {"device", "mlx5_0"}, {"port", p}});
}

double newest_value(const promql::StoredSeries* s) {
  REQUIRE(s != nullptr);
  return s->points().back().v;
}

}  // namespace

TEST_CASE("History files a series by its labels, not by where it arrived last tick",
          "[rules][history]") {
  History h(3000);
  h.ingest({y_gauge("1", 10), y_gauge("2", 20)}, kT0);
  // Swapped: each position now holds the other port's series.
  h.ingest({y_gauge("2", 21), y_gauge("1", 11)}, kT0 + 1000);
  CHECK(newest_value(y_port(h, "1")) == 11);
  CHECK(newest_value(y_port(h, "2")) == 21);
  CHECK(y_port(h, "1")->points().size() == 2);
  // A new series at a known position, and a series with one label more than its neighbour.
  Series extra = y_gauge("1", 99);
  extra.labels.edit().emplace_back("priority", "3");
  h.ingest({y_gauge("3", 30), extra, y_gauge("1", 12)}, kT0 + 2000);
  CHECK(h.series_count() == 4);
  CHECK(newest_value(y_port(h, "3")) == 30);
  CHECK(newest_value(y_port(h, "1")) == 12);
  CHECK(newest_value(h.find({{promql::kMetricNameLabel, "rdma_y"},
                             {"device", "mlx5_0"},
                             {"port", "1"},
                             {"priority", "3"}})) == 99);
  // Port 2 went stale at kT0 + 2000; once its samples age out it is erased, and its old
  // position (and the shorter series list) must not reach the erased entry.
  h.ingest({y_gauge("3", 31)}, kT0 + 6000);
  CHECK(y_port(h, "2") == nullptr);
  h.ingest({y_gauge("2", 22), y_gauge("3", 32)}, kT0 + 7000);
  CHECK(newest_value(y_port(h, "2")) == 22);
  CHECK(y_port(h, "2")->points().size() == 1);
  CHECK(newest_value(y_port(h, "3")) == 32);
}

TEST_CASE(
    "History knows a series that holds last tick's name, labels and origin, and still "
    "sees what changed",
    "[rules][history]") {
  History h;
  // Copies of one tick's series share their strings, as the Normalizer's ticks do.
  std::vector<Series> tick{x_counter("1", 100, "hw/a"), x_counter("2", 200, "hw/a")};
  h.ingest(tick, kT0);
  tick[0].value = 110;
  tick[1].value = 210;
  h.ingest(tick, kT0 + 1000);
  REQUIRE(x_port(h, "1")->points().size() == 2);
  CHECK(x_port(h, "2")->points().back().v == 210);
  // Swapped positions: each series shares the other position's strings, not its own.
  std::swap(tick[0], tick[1]);
  tick[0].value = 220;
  tick[1].value = 120;
  h.ingest(tick, kT0 + 2000);
  CHECK(x_port(h, "1")->points().back().v == 120);
  CHECK(x_port(h, "2")->points().back().v == 220);
  // The same name and labels from another raw counter: the counter starts again.
  tick[1].origin = SharedText("ethtool/b");
  tick[1].value = 7;
  h.ingest(tick, kT0 + 3000);
  REQUIRE(x_port(h, "1")->points().size() == 1);
  CHECK(x_port(h, "1")->points().front().v == 7);
  CHECK(x_port(h, "2")->points().size() == 4);
}
