#include "present/units.h"

#include <fmt/format.h>

#include <array>
#include <cmath>

namespace rdmatop {

namespace {

std::string trim_decimals(std::string text) {
  if (text.find('.') == std::string::npos) return text;
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  return text;
}

std::string scaled(double value, const std::string& space) {
  static constexpr std::array<const char*, 7> kPrefixes = {"", "k", "M", "G", "T", "P", "E"};
  const double magnitude = std::fabs(value);
  std::size_t prefix = 0;
  double shown = value;
  while (std::fabs(shown) >= 999.995 && prefix + 1 < kPrefixes.size()) {
    shown /= 1000.0;
    ++prefix;
  }
  if (magnitude < 1000.0) return trim_decimals(fmt::format("{:.2f}", value)) + space;
  return trim_decimals(fmt::format("{:.2f}", shown)) + space + kPrefixes[prefix];
}

}  // namespace

std::string format_si(double value) {
  return scaled(value, "");
}

std::string format_bytes(double bytes) {
  return scaled(bytes, " ") + "B";
}

std::string format_bytes_iec(double bytes) {
  static constexpr std::array<const char*, 7> kUnits = {"B",   "KiB", "MiB", "GiB",
                                                        "TiB", "PiB", "EiB"};
  std::size_t unit = 0;
  double shown = bytes;
  while (std::fabs(shown) >= 1024.0 && unit + 1 < kUnits.size()) {
    shown /= 1024.0;
    ++unit;
  }
  return trim_decimals(fmt::format("{:.2f}", shown)) + " " + kUnits[unit];
}

std::string format_percent(double fraction) {
  return trim_decimals(fmt::format("{:.1f}", fraction * 100.0)) + "%";
}

std::string format_rate(const Rate& rate, const std::string& suffix) {
  if (rate.state != RateState::ok && rate.state != RateState::wrap) return to_string(rate.state);
  if (suffix == "%") return format_percent(rate.per_second);
  if (suffix == " B/s") return format_bytes(rate.per_second) + "/s";
  return format_si(rate.per_second) + suffix;
}

std::string format_seconds(double seconds) {
  if (seconds < 1e-3) return fmt::format("{:.1f}us", seconds * 1e6);
  if (seconds < 1) return fmt::format("{:.2f}ms", seconds * 1e3);
  return fmt::format("{:.2f}s", seconds);
}

}  // namespace rdmatop
