// Field-level helpers shared by the text parsers (procfs, sysfs-shaped text): a blank-trimmed
// view and a whole-field number. Pure functions over string views.
#pragma once

#include <charconv>
#include <optional>
#include <string_view>
#include <system_error>

namespace rdmatop {

inline constexpr std::string_view kBlanks = " \t";

/// `s` without its leading and trailing spaces and tabs.
inline std::string_view trim_blanks(std::string_view s) {
  const std::size_t begin = s.find_first_not_of(kBlanks);
  if (begin == std::string_view::npos) return {};
  return s.substr(begin, s.find_last_not_of(kBlanks) - begin + 1);
}

/// `s` as one number in `base`; nullopt when `s` is empty, has anything after the digits, or
/// does not fit `T`.
template <class T>
std::optional<T> parse_whole_number(std::string_view s, int base = 10) {
  T v{};
  if (s.empty()) return std::nullopt;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace rdmatop
