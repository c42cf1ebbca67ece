# Real-kernel tests. They run in a private network namespace the test process creates for itself
# (unshare(CLONE_NEWNET)), so they never touch the host's interfaces or addresses. They need root
# (CAP_SYS_ADMIN + CAP_NET_ADMIN) and the `ip` and `ethtool` commands; without them the binary
# prints "SKIP: <reason>" and exits 77, which CTest reports as skipped.
find_package(Threads REQUIRED)
file(GLOB KERNEL_TEST_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.cpp)
add_executable(rdmatop_kernel_tests ${KERNEL_TEST_SOURCES})
# CATCH_CONFIG_RUNNER must precede the first <catch2/catch.hpp> of its translation unit, so
# main() is never batched with the test files in a unity build.
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/kernel_main.cpp
  PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
# kernel_main.cpp holds main() (the skip check must run before Catch), so Catch2 is linked
# directly rather than through rdmatop_catch_main.
target_link_libraries(rdmatop_kernel_tests
  PRIVATE rdmatop_collector Catch2::Catch2 Threads::Threads rdmatop_flags)
add_test(NAME kernel_tests COMMAND rdmatop_kernel_tests)
set_tests_properties(kernel_tests PROPERTIES LABELS kernel SKIP_RETURN_CODE 77)
