// StoredSeries keeps where its staleness markers and counter resets are, so rate() and
// increase() of a range selector read a window without copying it. These cases hold that
// bookkeeping to the points themselves: through appends, replaced samples, pruning and
// restarts, the in-place rate equals extrapolated_rate over a copy of the window, to the bit,
// and a comparison with a number applied as samples are made equals the general operator.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>

#include "rules/history.h"
#include "rules/promql/evaluator.h"
#include "rules/promql/functions.h"
#include "rules/promql/parser.h"
#include "rules/promql/storage.h"

using namespace rdmatop;
using namespace rdmatop::promql;

namespace {

/// The window's non-stale points, copied: what select_range hands extrapolated_rate.
std::vector<Point> samples_in(const StoredSeries& s, Timestamp start, Timestamp end) {
  std::vector<Point> out;
  for (const Point& p : s.points()) {
    if (p.t >= start && p.t <= end && !is_stale_nan(p.v)) out.push_back(p);
  }
  return out;
}

std::size_t resets_in(const std::vector<Point>& samples) {
  std::size_t n = 0;
  for (std::size_t i = 1; i < samples.size(); ++i) n += samples[i].v < samples[i - 1].v ? 1 : 0;
  return n;
}

bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

}  // namespace

TEST_CASE("StoredSeries::window counts samples and resets without the markers",
          "[rules][promql][storage]") {
  StoredSeries s;
  for (const Point p : {Point{0, 10}, Point{1000, 20}, Point{2000, stale_nan()}, Point{3000, 5},
                        Point{4000, 7}, Point{5000, 3}}) {
    s.append(p);
  }
  StoredWindow all = s.window(0, 5000);
  CHECK(all.end - all.begin == 6);
  CHECK(all.samples == 5);
  CHECK(all.resets == 2);  // 20 -> 5 across the marker, and 7 -> 3
  CHECK(all.first.v == 10);
  CHECK(all.last.v == 3);

  // A window starting on a reset: its first sample is no reset within the window.
  StoredWindow late = s.window(3000, 5000);
  CHECK(late.samples == 3);
  CHECK(late.resets == 1);
  CHECK(late.first.v == 5);

  // A window holding only the marker has no samples.
  CHECK(s.window(1500, 2500).samples == 0);

  // Replacing the last sample replaces its reset flag too.
  s.append(Point{5000, 9});
  CHECK(s.window(0, 5000).resets == 1);
  s.append(Point{5000, 1});
  CHECK(s.window(0, 5000).resets == 2);

  // Dropping the front keeps the counts of what is left.
  s.drop_before(3000);
  REQUIRE(s.points().size() == 3);
  StoredWindow kept = s.window(0, 5000);
  CHECK(kept.samples == 3);
  CHECK(kept.resets == 1);  // 7 -> 1; 5 is now the first sample

  s.clear();
  CHECK(s.window(0, 5000).samples == 0);
  s.append(Point{6000, 4});
  s.append(Point{7000, 2});
  CHECK(s.window(0, 7000).resets == 1);  // indices keep counting after a clear
}

TEST_CASE(
    "rate, increase and delta read in place equal extrapolated_rate over a copy, compared or not",
    "[rules][promql][storage]") {
  std::mt19937 rng(20261203);
  const Labels labels = {{kMetricNameLabel, "x_total"}};
  const char* const functions[] = {"rate", "increase", "delta"};
  const int ranges_s[] = {5, 30, 120};
  std::size_t compared = 0;
  std::size_t with_resets = 0;
  std::size_t filtered_kept = 0;  // comparisons with a number that kept the sample
  std::size_t filtered_dropped = 0;
  for (int round = 0; round < 4; ++round) {
    History h(90 * 1000);
    double value = 0;
    Timestamp t = 0;
    for (int step = 0; step < 300; ++step) {
      t += 1000 + static_cast<Timestamp>(rng() % 3) * 500;
      const auto roll = rng() % 100;
      if (roll < 5) {
        h.append(labels, t, stale_nan());
      } else if (roll < 10) {
        value = static_cast<double>(rng() % 50);  // a reset (or not: a draw above the last)
        h.append(labels, t, value);
      } else {
        value += static_cast<double>(rng() % 1000) / 7.0;
        h.append(labels, t, value);
        if (roll < 15) h.append(labels, t, value + 0.5);  // the same timestamp, replaced
      }
      if (step % 17 == 0) h.prune(t);
      const StoredSeries* s = h.find(labels);
      if (s == nullptr) continue;
      for (const char* f : functions) {
        for (const int r : ranges_s) {
          const Timestamp range = r * 1000;
          const std::vector<Point> copy = samples_in(*s, t - range, t);
          const std::string expr = std::string(f) + "(x_total[" + std::to_string(r) + "s])";
          auto parsed = parse_expr(expr);
          REQUIRE(parsed.ok());
          auto v = evaluate(*parsed.expr(), h, t);
          REQUIRE(v.ok());
          const auto expected = extrapolated_rate(copy, t - range, t, std::strcmp(f, "delta") != 0,
                                                  std::strcmp(f, "rate") == 0);
          INFO(expr << " at " << t << ", " << copy.size() << " samples");
          REQUIRE(v->vector.size() == (expected ? 1u : 0u));
          if (!expected) continue;
          CHECK(same_bits(v->vector[0].value, *expected));
          ++compared;
          with_resets += resets_in(copy) > 0 ? 1 : 0;
          // A comparison with a number literal is applied as the samples are made; through
          // scalar() the same comparison takes the general path. Both must agree.
          const double threshold = *expected;
          for (const char* op : {" > ", " >= ", " < ", " == "}) {
            const std::string n = std::to_string(threshold);
            for (const auto& [pushed, general] :
                 {std::pair{expr + op + n, expr + op + "scalar(vector(" + n + "))"},
                  std::pair{n + op + "(" + expr + ")", "scalar(vector(" + n + "))" + op + expr},
                  std::pair{std::string("x_total") + op + n,
                            std::string("x_total") + op + "scalar(vector(" + n + "))"}}) {
              auto a = parse_expr(pushed);
              auto b = parse_expr(general);
              REQUIRE(a.ok());
              REQUIRE(b.ok());
              auto va = evaluate(*a.expr(), h, t);
              auto vb = evaluate(*b.expr(), h, t);
              REQUIRE(va.ok());
              REQUIRE(vb.ok());
              INFO(pushed);
              REQUIRE(va->vector.size() == vb->vector.size());
              if (!va->vector.empty()) {
                CHECK(same_bits(va->vector[0].value, vb->vector[0].value));
                CHECK(va->vector[0].labels == vb->vector[0].labels);
                ++filtered_kept;
              } else {
                ++filtered_dropped;
              }
            }
          }
        }
      }
    }
  }
  CHECK(filtered_kept > 2500);
  CHECK(filtered_dropped > 2500);
  // The draws must have reached both paths: windows with resets and windows without.
  CHECK(compared > 2500);
  CHECK(with_resets > 250);
  CHECK(compared - with_resets > 250);
}

TEST_CASE("StoredSeries finds a window's ends as std::upper_bound does, evenly spaced or not",
          "[rules][promql][storage]") {
  // window() and first_after() guess a position from the average spacing and confirm it:
  // every spacing below (one per tick, jittered, gaps, runs of equal-spaced points after a
  // gap, a single point) must give what a binary search gives, for any probe time.
  std::mt19937 rng(20261204);
  std::size_t probes = 0;
  std::size_t guessed_layouts = 0;
  for (int layout = 0; layout < 200; ++layout) {
    StoredSeries s;
    Timestamp t = static_cast<Timestamp>(rng() % 5000);
    const auto n = 1 + rng() % 80;
    for (std::size_t i = 0; i < n; ++i) {
      s.append(Point{t, static_cast<double>(i)});
      switch (layout % 4) {
        case 0:  // one per tick, as the collector writes
          t += 1000;
          break;
        case 1:  // jittered ticks
          t += 900 + static_cast<Timestamp>(rng() % 200);
          break;
        case 2:  // a gap now and then
          t += rng() % 10 == 0 ? 30'000 : 1000;
          break;
        default:  // anything
          t += 1 + static_cast<Timestamp>(rng() % 5000);
          break;
      }
    }
    if (layout % 5 == 0 && s.points().size() > 3) s.drop_before(s.points()[2].t);
    guessed_layouts += s.points().size() >= 2 ? 1 : 0;
    const auto& pts = s.points();
    const Timestamp lo = pts.front().t - 3000;
    const Timestamp hi = pts.back().t + 3000;
    for (Timestamp probe = lo; probe <= hi; probe += 1 + static_cast<Timestamp>(rng() % 700)) {
      const auto expected = std::upper_bound(pts.begin(), pts.end(), probe,
                                             [](Timestamp x, const Point& p) { return x < p.t; });
      INFO("layout " << layout << ", probe " << probe);
      REQUIRE(s.first_after(probe) == expected);
      for (const Timestamp range : {Timestamp{0}, Timestamp{999}, Timestamp{5000}}) {
        const StoredWindow w = s.window(probe - range, probe);
        const auto begin = std::lower_bound(pts.begin(), pts.end(), probe - range,
                                            [](const Point& p, Timestamp x) { return p.t < x; });
        REQUIRE(w.begin == begin);
        REQUIRE(w.end == expected);
      }
      // Exactly on a point's timestamp, and one millisecond either side of it.
      const Point& on = pts[static_cast<std::size_t>(rng()) % pts.size()];
      for (const Timestamp at : {on.t - 1, on.t, on.t + 1}) {
        REQUIRE(s.first_after(at) ==
                std::upper_bound(pts.begin(), pts.end(), at,
                                 [](Timestamp x, const Point& p) { return x < p.t; }));
      }
      ++probes;
    }
  }
  CHECK(probes > 5000);
  CHECK(guessed_layouts > 150);
}
