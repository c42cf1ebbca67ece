// Runs the built rdmatop binary from the source root (so that messages quoting relative fixture
// paths do not depend on where the repository is checked out) and collects stdout and the exit
// code. `shell_tail` goes after the command, e.g. " 2>/dev/null".
#pragma once

#include <sys/wait.h>

#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

namespace rdmatop::test {

struct BinaryRun {
  std::string out;
  int exit_code = -1;
};

inline BinaryRun run_binary(const std::string& command) {
  const std::string cmd = std::string("cd '") + RDMATOP_SOURCE_DIR + "' && " + command;
  BinaryRun result;
  FILE* pipe = popen(cmd.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::array<char, 4096> buf{};
  std::size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) result.out.append(buf.data(), n);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

#ifdef RDMATOP_BINARY
/// `rdmatop <args>` (the binary this build made), stderr discarded.
inline BinaryRun run_rdmatop(const std::string& args) {
  return run_binary(std::string(RDMATOP_BINARY) + " " + args + " 2>/dev/null");
}
#endif

}  // namespace rdmatop::test
