#include <catch2/catch.hpp>

#include "recording/recording_time.h"

using namespace rdmatop;
using std::chrono::nanoseconds;
using std::chrono::system_clock;

TEST_CASE("Durations parse with units and reject garbage", "[recording][time]") {
  const std::vector<std::pair<const char*, std::int64_t>> good = {
      {"90", 90'000'000'000},
      {"90s", 90'000'000'000},
      {"500ms", 500'000'000},
      {"1.5m", 90'000'000'000},
      {"2h", 7'200'000'000'000},
      {"3d", 259'200'000'000'000},
      {"0", 0},
      {"0.25", 250'000'000},
  };
  for (const auto& [text, ns] : good) {
    INFO(text);
    const auto d = parse_duration(text);
    REQUIRE(d.ok());
    CHECK(d->count() == ns);
  }
  for (const char* text :
       {"", "s", "-5s", "+5s", "5x", "5 s", "1e400", "nan", "5ss", "\xff", "999999999999d"}) {
    INFO(text);
    const auto d = parse_duration(text);
    REQUIRE_FALSE(d.ok());
    CHECK(d.error().message.find(std::string("\"") + text + "\"") == 0);
  }
}

TEST_CASE("Recording times are offsets or RFC3339 wall times", "[recording][time]") {
  const auto offset = parse_recording_time("+90s");
  REQUIRE(offset.ok());
  CHECK(std::get<nanoseconds>(offset->value) == std::chrono::seconds(90));

  // 2026-11-30T10:30:00Z = 1796034600 s since the epoch.
  const system_clock::time_point base{std::chrono::seconds(1'796'034'600)};
  const std::vector<std::pair<const char*, system_clock::time_point>> good = {
      {"2026-11-30T10:30:00Z", base},
      {"2026-11-30t10:30:00z", base},
      {"2026-11-30T12:30:00+02:00", base},
      {"2026-11-30T05:00:00-05:30", base},
      {"2026-11-30T10:30:00.5Z", base + std::chrono::milliseconds(500)},
      {"2026-11-30T10:30:00.000000001Z", base + nanoseconds(1)},
  };
  for (const auto& [text, expected] : good) {
    INFO(text);
    const auto t = parse_recording_time(text);
    REQUIRE(t.ok());
    CHECK(std::get<system_clock::time_point>(t->value) == expected);
  }
  for (const char* text :
       {"", "2026-11-30T10:30:00", "2026-11-30", "2026-02-30T10:30:00Z", "2026-11-30T24:00:00Z",
        "2026-11-30T10:30:00.Z", "2026-11-30T10:30:00Zjunk", "2026-11-30T10:30:00+2:00", "+",
        "+-5s", "yesterday"}) {
    INFO(text);
    CHECK_FALSE(parse_recording_time(text).ok());
  }
}

TEST_CASE("Windows have optional ends and must not run backwards", "[recording][time]") {
  const auto both = parse_recording_window("+10s..+20s");
  REQUIRE(both.ok());
  REQUIRE(both->from.has_value());
  REQUIRE(both->to.has_value());
  CHECK(std::get<nanoseconds>(both->to->value) == std::chrono::seconds(20));
  const auto open_start = parse_recording_window("..+5m");
  REQUIRE(open_start.ok());
  CHECK_FALSE(open_start->from.has_value());
  const auto open_end = parse_recording_window("2026-11-30T10:30:00Z..");
  REQUIRE(open_end.ok());
  CHECK_FALSE(open_end->to.has_value());
  CHECK_FALSE(parse_recording_window("+20s..+10s").ok());
  CHECK_FALSE(parse_recording_window("+10s").ok());
  CHECK_FALSE(parse_recording_window("+10s..junk").ok());
  // Mixed kinds cannot be ordered without a recording, so they are accepted.
  CHECK(parse_recording_window("2026-11-30T10:30:00Z..+1s").ok());
}

TEST_CASE("Snapshots compare against both kinds of time", "[recording][time]") {
  Snapshot s;
  s.taken = std::chrono::steady_clock::time_point(std::chrono::seconds(60));
  s.wall = system_clock::time_point(std::chrono::seconds(1'796'034'600));
  const RecordingTime at_60s{nanoseconds(std::chrono::seconds(60))};
  const RecordingTime at_90s{nanoseconds(std::chrono::seconds(90))};
  CHECK_FALSE(is_before(s, at_60s));
  CHECK_FALSE(is_after(s, at_60s));
  CHECK(is_before(s, at_90s));
  const RecordingTime wall_before{s.wall - std::chrono::seconds(1)};
  CHECK(is_after(s, wall_before));
  CHECK_FALSE(is_before(s, wall_before));
}

TEST_CASE("Wall times format as RFC3339 UTC with milliseconds", "[recording][time]") {
  const system_clock::time_point t{std::chrono::milliseconds(1'796'034'600'042)};
  CHECK(format_rfc3339(t) == "2026-11-30T10:30:00.042Z");
  const auto back = parse_recording_time(format_rfc3339(t));
  REQUIRE(back.ok());
  CHECK(std::get<system_clock::time_point>(back->value) == t);
}
