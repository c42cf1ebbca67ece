#include "probes/scheduler.h"

#include <catch2/catch.hpp>
#include <map>
#include <stdexcept>

namespace rdmatop::probes {
namespace {

using namespace std::chrono_literals;

/// A clock the test moves by hand.
struct FakeClock {
  Scheduler::TimePoint now{std::chrono::seconds(1000)};
  Scheduler::Clock fn() {
    return [this] { return now; };
  }
};

/// Steps the clock in `step` increments for `total`, collecting every due probe.
std::vector<DueProbe> run(Scheduler& s, FakeClock& clock, std::chrono::nanoseconds total,
                          std::chrono::nanoseconds step = 1ms) {
  std::vector<DueProbe> all;
  const auto end = clock.now + total;
  while (clock.now < end) {
    clock.now += step;
    for (const auto& d : s.take_due()) all.push_back(d);
  }
  return all;
}

std::map<std::uint64_t, int> per_stream(const std::vector<DueProbe>& due) {
  std::map<std::uint64_t, int> out;
  for (const auto& d : due) ++out[d.stream];
  return out;
}

TEST_CASE("each stream probes at its rate, jitter averaging out", "[probes][scheduler]") {
  FakeClock clock;
  ScheduleOptions o;
  o.rate_per_stream = 10;
  o.jitter = 0.3;
  Scheduler s(o, clock.fn());
  s.add_stream(1);
  s.add_stream(2);
  s.add_stream(3, 2.0);  // its own rate
  const auto counts = per_stream(run(s, clock, 20s));
  CHECK(counts.at(1) >= 190);
  CHECK(counts.at(1) <= 210);
  CHECK(counts.at(2) >= 190);
  CHECK(counts.at(2) <= 210);
  CHECK(counts.at(3) >= 36);
  CHECK(counts.at(3) <= 44);
}

TEST_CASE("jitter spreads the intervals; zero jitter makes them exact", "[probes][scheduler]") {
  for (double jitter : {0.0, 0.5}) {
    FakeClock clock;
    ScheduleOptions o;
    o.rate_per_stream = 10;
    o.jitter = jitter;
    Scheduler s(o, clock.fn());
    s.add_stream(7);
    std::vector<Scheduler::TimePoint> fired;
    for (int i = 0; i < 5000; ++i) {
      clock.now += 1ms;
      if (!s.take_due().empty()) fired.push_back(clock.now);
    }
    REQUIRE(fired.size() > 10);
    auto min_gap = fired[1] - fired[0], max_gap = min_gap;
    for (std::size_t i = 2; i < fired.size(); ++i) {
      min_gap = std::min(min_gap, fired[i] - fired[i - 1]);
      max_gap = std::max(max_gap, fired[i] - fired[i - 1]);
    }
    INFO("jitter " << jitter);
    if (jitter == 0.0) {
      CHECK(min_gap == 100ms);
      CHECK(max_gap == 100ms);
    } else {
      CHECK(min_gap < 80ms);
      CHECK(max_gap > 120ms);
      CHECK(min_gap >= 49ms);
      CHECK(max_gap <= 151ms);
    }
  }
}

TEST_CASE("first probes are spread over one period, not all at once", "[probes][scheduler]") {
  FakeClock clock;
  ScheduleOptions o;
  o.rate_per_stream = 1;
  o.jitter = 0;
  Scheduler s(o, clock.fn());
  for (std::uint64_t i = 0; i < 100; ++i) s.add_stream(i);
  const auto first_100ms = run(s, clock, 100ms);
  CHECK(first_100ms.size() < 30);  // ~10 expected of 100
  auto all = run(s, clock, 900ms);
  all.insert(all.end(), first_100ms.begin(), first_100ms.end());
  const auto counts = per_stream(all);
  CHECK(counts.size() == 100);  // every stream once in its first period
  for (const auto& [id, n] : counts) CHECK(n == 1);
}

TEST_CASE("the global cap bounds the total and stays fair", "[probes][scheduler]") {
  FakeClock clock;
  ScheduleOptions o;
  o.rate_per_stream = 10;  // demand: 100 streams x 10/s = 1000/s
  o.rate_cap = 50;
  Scheduler s(o, clock.fn());
  for (std::uint64_t i = 0; i < 100; ++i) s.add_stream(i);
  const auto due = run(s, clock, 10s);
  CHECK(due.size() <= 50 * 10 + 5);  // + the initial burst of cap/10
  CHECK(due.size() >= 50 * 10 - 5);
  const auto counts = per_stream(due);
  CHECK(counts.size() == 100);
  for (const auto& [id, n] : counts) {
    INFO("stream " << id);
    CHECK(n >= 3);
    CHECK(n <= 7);
  }
}

TEST_CASE("next_due says when to wake up", "[probes][scheduler]") {
  FakeClock clock;
  ScheduleOptions o;
  o.rate_per_stream = 1;
  o.rate_cap = 1;
  Scheduler s(o, clock.fn());
  CHECK_FALSE(s.next_due().has_value());
  s.add_stream(1);
  s.add_stream(2);
  const auto first = *s.next_due();
  CHECK(first >= clock.now);
  CHECK(first <= clock.now + 1s);
  clock.now += 1s;  // both due now, one token
  CHECK(s.take_due().size() == 1);
  CHECK(s.take_due().empty());
  // The other one waits for the next token, a full second at 1/s.
  CHECK(*s.next_due() >= clock.now + 900ms);
  clock.now += 1s;
  CHECK(s.take_due().size() == 1);
}

TEST_CASE("payload sizes rotate per stream", "[probes][scheduler]") {
  FakeClock clock;
  ScheduleOptions o;
  o.rate_per_stream = 100;
  o.sizes = {64, 4096, 16384};
  Scheduler s(o, clock.fn());
  s.add_stream(1);
  s.add_stream(2);
  std::map<std::uint64_t, std::vector<std::size_t>> seen;
  for (const auto& d : run(s, clock, 100ms)) seen[d.stream].push_back(d.payload_bytes);
  for (const auto& [id, sizes] : seen) {
    REQUIRE(sizes.size() >= 6);
    for (std::size_t i = 0; i < sizes.size(); ++i) CHECK(sizes[i] == o.sizes[i % 3]);
  }
}

TEST_CASE("streams come and go without disturbing the others", "[probes][scheduler]") {
  FakeClock clock;
  ScheduleOptions o;
  o.rate_per_stream = 10;
  Scheduler s(o, clock.fn());
  s.add_stream(1);
  s.add_stream(2);
  run(s, clock, 1s);
  s.remove_stream(2);
  s.remove_stream(99);  // unknown: nothing happens
  s.add_stream(1);      // already there: keeps its schedule
  CHECK(s.stream_count() == 1);
  const auto counts = per_stream(run(s, clock, 2s));
  CHECK(counts.count(2) == 0);
  CHECK(counts.at(1) >= 18);
  CHECK(counts.at(1) <= 22);
}

// A removed stream's queue entry stays until it comes up; a stream added again under the same id
// must not be probed by it as well as by its own.
TEST_CASE("a stream removed and added again is probed at its rate, not twice",
          "[probes][scheduler]") {
  FakeClock clock;
  ScheduleOptions o;
  o.rate_per_stream = 10;
  Scheduler s(o, clock.fn());
  for (std::uint64_t id = 0; id < 10; ++id) s.add_stream(id);
  run(s, clock, 1s);
  // Most removed streams' entries are not on top of the queue when they are removed.
  for (int round = 0; round < 3; ++round) {
    for (std::uint64_t id = 1; id < 10; ++id) {
      s.remove_stream(id);
      s.add_stream(id);
    }
  }
  CHECK(s.stream_count() == 10);
  for (const auto& [id, n] : per_stream(run(s, clock, 2s))) {
    INFO("stream " << id);
    CHECK(n >= 18);
    CHECK(n <= 22);
  }
}

TEST_CASE("bad schedule options are rejected", "[probes][scheduler]") {
  FakeClock clock;
  auto make = [&](ScheduleOptions o) { Scheduler s(o, clock.fn()); };
  ScheduleOptions zero_rate;
  zero_rate.rate_per_stream = 0;
  CHECK_THROWS_AS(make(zero_rate), std::invalid_argument);
  ScheduleOptions bad_jitter;
  bad_jitter.jitter = 1.0;
  CHECK_THROWS_AS(make(bad_jitter), std::invalid_argument);
  ScheduleOptions no_sizes;
  no_sizes.sizes.clear();
  CHECK_THROWS_AS(make(no_sizes), std::invalid_argument);
  ScheduleOptions negative_cap;
  negative_cap.rate_cap = -1;
  CHECK_THROWS_AS(make(negative_cap), std::invalid_argument);
  Scheduler s(ScheduleOptions{}, clock.fn());
  CHECK_THROWS_AS(s.add_stream(1, -2.0), std::invalid_argument);
}

}  // namespace
}  // namespace rdmatop::probes
