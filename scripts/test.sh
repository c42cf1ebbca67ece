#!/usr/bin/env bash
# The whole test suite, exactly as CI runs it (.ci/run calls this after install-deps.sh):
#  1. clang-format over all first-party C++;
#  2. a -Werror build (RelWithDebInfo) of the binary and the packaged files;
#  3. an ASan+UBSan -Werror build that runs every suite but the VM and package ones, and the
#     binary on each fixture;
#  4. the libFuzzer targets, built with clang in build-fuzz, ~3 minutes in all (scripts/fuzz.sh);
#  5. the binary built without libibverbs/librdmacm: it links neither, runs, and says why RC
#     probes fail (scripts/no_verbs_check.sh);
#  6. the VM and package suites on the -Werror build (the VM boots that build's binary; the
#     package suite skips in sanitizer builds because a .deb must not carry ASan).
# Each suite runs once: under the sanitizers where it can, else on the plain build. The
# sanitizer build is -O1, as the AddressSanitizer documentation recommends for speed; at -O0
# the simulator suites ran ten times slower than on the plain build.
# Both trees are unity builds (16 files per translation unit, CMAKE_UNITY_BUILD) with line-table
# debug info (-g1, enough for sanitizer and crash stack traces): code generation of the inline
# templates (json, fmt, CLI11, Catch2) dominates compile time, and a unity batch generates them
# once instead of once per file (docs/development.md has the measurements). Files of one library
# must therefore not define clashing names in their anonymous namespaces; shared helpers go in a
# header.
# Exit status is non-zero if any step fails.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
jobs=$(nproc)

echo "== format check"
mapfile -t sources < <(git ls-files --cached --others --exclude-standard \
  '*.cpp' '*.h' | grep -v '^tests/fixtures/' || true)
clang-format --dry-run -Werror "${sources[@]}"

echo "== build (-Werror)"
generator=Ninja
command -v ninja >/dev/null || generator="Unix Makefiles"
# A tree configured earlier with another generator is configured afresh (CMake refuses to switch).
configure() {
  local dir=$1
  shift
  if [ -f "$dir/CMakeCache.txt" ] &&
    ! grep -qx "CMAKE_GENERATOR:INTERNAL=$generator" "$dir/CMakeCache.txt"; then
    rm -rf "$dir"
  fi
  cmake -S . -B "$dir" -G "$generator" -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 \
    "$@" >/dev/null
}
configure build-ci -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DRDMATOP_WERROR=ON
# The binary and what the package installs: the only suites run on this build (vm, package) need
# no more, and every test program is built (-Werror too) and run by the sanitizer build below.
cmake --build build-ci -j"$jobs" --target rdmatop rdmatop_dist

echo "== sanitizer build (address;undefined)"
configure build-asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" \
  -DRDMATOP_WERROR=ON "-DRDMATOP_SANITIZE=address;undefined"
cmake --build build-asan -j"$jobs"

echo "== sanitizer run: every suite but vm and package"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
# The unit cases run in one process of the unit binary, beside the other suites: as one CTest
# test per case (what `ctest -L unit` does) each of the ~560 cases pays an ASan process start,
# which took three times as long as the cases themselves.
unit_log=build-asan/unit-tests.log
(cd build-asan/tests && ./rdmatop_unit_tests) >"$unit_log" 2>&1 &
unit_pid=$!
suites_ok=0
ctest --test-dir build-asan -LE '^(vm|package|unit)$' --output-on-failure -j"$jobs" || suites_ok=$?
unit_ok=0
wait "$unit_pid" || unit_ok=$?
tail -n 4 "$unit_log"
if [ "$unit_ok" -ne 0 ]; then
  echo "== unit tests failed (exit $unit_ok): $unit_log" >&2
  cat "$unit_log" >&2
fi
if [ "$suites_ok" -ne 0 ] || [ "$unit_ok" -ne 0 ]; then exit 1; fi
echo "== sanitizer run: the binary on every fixture host"
for host in tests/fixtures/hosts/*/; do
  for fmt in "" --json; do
    build-asan/bin/rdmatop report --interval 0.05 $fmt --sysfs-root "$host/sys" \
      --ethtool-dir "$host/ethtool" >/dev/null || [ $? -le 2 ]
  done
done
echo "== sanitizer run: the demo for a bounded number of simulated ticks"
build-asan/bin/rdmatop demo pfc-storm --ticks 60 >/dev/null
unset ASAN_OPTIONS UBSAN_OPTIONS

echo "== fuzzing: every parser's libFuzzer target for a bounded time (docs/fuzzing.md)"
scripts/fuzz.sh

echo "== the build without RDMA verbs (-DRDMATOP_WITH_VERBS=OFF, docs/install.md)"
scripts/no_verbs_check.sh build-noverbs

echo "== vm and package suites (plain build)"
ctest --test-dir build-ci -L '^(vm|package)$' --output-on-failure -j"$jobs"
