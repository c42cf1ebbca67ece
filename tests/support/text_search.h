// Substring search for tests that check rendered text (screens, expositions, reports).
#pragma once

#include <string>

namespace rdmatop::test {

inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

/// Error messages quote untrusted bytes: they must stay printable ASCII (no raw control bytes,
/// no raw non-UTF-8).
inline bool printable_ascii(const std::string& s) {
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f) return false;
  }
  return true;
}

}  // namespace rdmatop::test
