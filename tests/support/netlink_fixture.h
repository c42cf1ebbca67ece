// The recorded netlink replies under tests/fixtures/netlink/ (README.md there says how each was
// made), as bytes for the parsers.
#pragma once

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "tests/support/temp_dir.h"

namespace rdmatop::test {

/// The bytes of tests/fixtures/netlink/<name>; the test fails when the file is missing or empty.
inline std::vector<std::uint8_t> netlink_fixture(const std::string& name) {
  const std::string bytes =
      read_file(std::string(RDMATOP_SOURCE_DIR) + "/tests/fixtures/netlink/" + name);
  REQUIRE_FALSE(bytes.empty());
  return {bytes.begin(), bytes.end()};
}

}  // namespace rdmatop::test
