#include "recording/recording_time.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdint>

namespace rdmatop {

namespace {

using std::chrono::nanoseconds;

Error bad(std::string_view text, const std::string& why) {
  return Error{0, "\"" + std::string(text) + "\": " + why};
}

/// Parses exactly `width` decimal digits at `pos`.
std::optional<int> digits(std::string_view text, std::size_t pos, std::size_t width) {
  if (pos + width > text.size()) return std::nullopt;
  int value = 0;
  for (std::size_t i = pos; i < pos + width; ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

Result<std::chrono::system_clock::time_point> parse_rfc3339(std::string_view text) {
  const Error err = bad(text, "expected RFC3339 like 2026-11-30T10:30:00Z or +90s");
  // YYYY-MM-DDTHH:MM:SS
  if (text.size() < 20 || text[4] != '-' || text[7] != '-' ||
      (text[10] != 'T' && text[10] != 't' && text[10] != ' ') || text[13] != ':' ||
      text[16] != ':') {
    return err;
  }
  const auto year = digits(text, 0, 4), month = digits(text, 5, 2), day = digits(text, 8, 2);
  const auto hour = digits(text, 11, 2), minute = digits(text, 14, 2), second = digits(text, 17, 2);
  if (!year || !month || !day || !hour || !minute || !second) return err;
  const std::chrono::year_month_day ymd{std::chrono::year(*year),
                                        std::chrono::month(static_cast<unsigned>(*month)),
                                        std::chrono::day(static_cast<unsigned>(*day))};
  if (!ymd.ok() || *hour > 23 || *minute > 59 || *second > 60) return bad(text, "no such date");
  std::size_t pos = 19;
  nanoseconds fraction{0};
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    std::int64_t scale = 100'000'000;
    const std::size_t first = pos;
    for (; pos < text.size() && text[pos] >= '0' && text[pos] <= '9'; ++pos) {
      fraction += nanoseconds((text[pos] - '0') * scale);
      scale /= 10;
    }
    if (pos == first) return err;
  }
  std::chrono::minutes zone{0};
  if (pos < text.size() && (text[pos] == 'Z' || text[pos] == 'z')) {
    ++pos;
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    const auto zh = digits(text, pos + 1, 2), zm = digits(text, pos + 4, 2);
    if (!zh || !zm || pos + 3 >= text.size() || text[pos + 3] != ':' || *zh > 23 || *zm > 59) {
      return err;
    }
    zone = std::chrono::minutes((*zh * 60 + *zm) * (text[pos] == '-' ? -1 : 1));
    pos += 6;
  } else {
    return bad(text, "RFC3339 time needs a zone (Z or +HH:MM)");
  }
  if (pos != text.size()) return err;
  const auto local = std::chrono::sys_days(ymd) + std::chrono::hours(*hour) +
                     std::chrono::minutes(*minute) + std::chrono::seconds(*second) + fraction;
  // "12:30+02:00" is 10:30 UTC.
  return std::chrono::time_point_cast<std::chrono::system_clock::duration>(local - zone);
}

}  // namespace

Result<nanoseconds> parse_duration(std::string_view text) {
  if (text.empty()) return bad(text, "empty duration");
  std::size_t unit_at = text.size();
  while (unit_at > 0 && !(text[unit_at - 1] >= '0' && text[unit_at - 1] <= '9') &&
         text[unit_at - 1] != '.') {
    --unit_at;
  }
  const std::string_view number = text.substr(0, unit_at);
  const std::string_view unit = text.substr(unit_at);
  double value = 0;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  // from_chars takes a leading '-': durations are never negative.
  if (number.empty() || number.front() == '-' || ec != std::errc() ||
      end != number.data() + number.size()) {
    return bad(text, "expected a duration like 90s, 500ms, 5m, 2h, 3d");
  }
  double seconds_per_unit = 0;
  if (unit.empty() || unit == "s") {
    seconds_per_unit = 1;
  } else if (unit == "ms") {
    seconds_per_unit = 1e-3;
  } else if (unit == "m") {
    seconds_per_unit = 60;
  } else if (unit == "h") {
    seconds_per_unit = 3600;
  } else if (unit == "d") {
    seconds_per_unit = 86400;
  } else {
    return bad(text, "unknown unit \"" + std::string(unit) + "\" (ms, s, m, h, d)");
  }
  const double seconds = value * seconds_per_unit;
  if (!std::isfinite(seconds) || seconds > 100.0 * 365 * 86400) return bad(text, "out of range");
  return nanoseconds(static_cast<std::int64_t>(std::llround(seconds * 1e9)));
}

Result<RecordingTime> parse_recording_time(std::string_view text) {
  if (!text.empty() && text.front() == '+') {
    auto offset = parse_duration(text.substr(1));
    if (!offset) return offset.error();
    return RecordingTime{*offset};
  }
  auto wall = parse_rfc3339(text);
  if (!wall) return wall.error();
  return RecordingTime{*wall};
}

Result<RecordingWindow> parse_recording_window(std::string_view text) {
  const auto dots = text.find("..");
  if (dots == std::string_view::npos) return bad(text, "expected FROM..TO");
  RecordingWindow window;
  const std::string_view from = text.substr(0, dots), to = text.substr(dots + 2);
  if (!from.empty()) {
    auto t = parse_recording_time(from);
    if (!t) return t.error();
    window.from = *t;
  }
  if (!to.empty()) {
    auto t = parse_recording_time(to);
    if (!t) return t.error();
    window.to = *t;
  }
  if (window.from && window.to && window.from->value.index() == window.to->value.index() &&
      window.to->value < window.from->value) {
    return bad(text, "the window ends before it starts");
  }
  return window;
}

bool is_before(const Snapshot& snapshot, const RecordingTime& time) {
  if (const auto* offset = std::get_if<nanoseconds>(&time.value)) {
    return snapshot.taken.time_since_epoch() < *offset;
  }
  return snapshot.wall < std::get<std::chrono::system_clock::time_point>(time.value);
}

bool is_after(const Snapshot& snapshot, const RecordingTime& time) {
  if (const auto* offset = std::get_if<nanoseconds>(&time.value)) {
    return snapshot.taken.time_since_epoch() > *offset;
  }
  return snapshot.wall > std::get<std::chrono::system_clock::time_point>(time.value);
}

std::string format_rfc3339(std::chrono::system_clock::time_point t) {
  const auto ms = std::chrono::floor<std::chrono::milliseconds>(t);
  const auto secs = std::chrono::floor<std::chrono::seconds>(ms);
  return fmt::format("{:%Y-%m-%dT%H:%M:%S}.{:03}Z",
                     fmt::gmtime(std::chrono::system_clock::to_time_t(secs)), (ms - secs).count());
}

}  // namespace rdmatop
