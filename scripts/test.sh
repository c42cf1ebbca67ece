#!/usr/bin/env bash
# The whole test suite, exactly as CI runs it (.ci/run calls this after install-deps.sh):
#  1. a -Werror build and every CTest suite (unit, e2e goldens, kernel, rules, vm);
#  2. an ASan+UBSan build that runs every suite but the VM one, and the binary on each fixture;
#  3. clang-format over all first-party C++.
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
cmake -S . -B build-ci -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRDMATOP_WERROR=ON >/dev/null
cmake --build build-ci -j"$jobs"

echo "== sanitizer build (address;undefined)"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DRDMATOP_WERROR=ON \
  "-DRDMATOP_SANITIZE=address;undefined" >/dev/null
cmake --build build-asan -j"$jobs"

echo "== sanitizer run: every suite but vm"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
ctest --test-dir build-asan -LE vm --output-on-failure -j"$jobs"
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

echo "== all suites"
ctest --test-dir build-ci --output-on-failure -j"$jobs"
