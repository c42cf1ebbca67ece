// Substring search for tests that check rendered text (screens, expositions, reports).
#pragma once

#include <string>

namespace rdmatop::test {

inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

}  // namespace rdmatop::test
