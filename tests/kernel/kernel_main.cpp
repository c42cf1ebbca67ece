// main() of the real-kernel suite: decide, before Catch runs anything, whether this machine can
// run it. Catch2 v2 has no SKIP, so a missing prerequisite ends the process with 77, which
// suite.cmake declares as CTest's SKIP_RETURN_CODE; the reason is printed for the ctest log.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <iostream>

#include "tests/kernel/kernel_support.h"

int main(int argc, char** argv) {
  if (auto reason = rdmatop::kernel_test::enter_private_netns()) {
    std::cout << "SKIP: " << *reason << std::endl;
    return 77;
  }
  return Catch::Session().run(argc, argv);
}
