#!/usr/bin/env bash
# The build without RDMA verbs (-DRDMATOP_WITH_VERBS=OFF, docs/install.md): configures and
# builds only the binary in build-noverbs (-O0 -g0: this build is checked, not shipped, and -O0
# compiles fastest), then checks that
#  * the binary links neither libibverbs nor librdmacm (ldd);
#  * what reads counters runs: the demo for a few simulated ticks, a report on a fixture host;
#  * what needs verbs fails with the build's clear error: an RC probe, an rdma_cm-only
#    responder.
# Exit status is non-zero on the first failed check. Usage: scripts/no_verbs_check.sh [DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
dir=${1:-build-noverbs}
generator=Ninja
command -v ninja >/dev/null || generator="Unix Makefiles"
if [ -f "$dir/CMakeCache.txt" ] &&
  ! grep -qx "CMAKE_GENERATOR:INTERNAL=$generator" "$dir/CMakeCache.txt"; then
  rm -rf "$dir"
fi
cmake -S . -B "$dir" -G "$generator" -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 \
  -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O0 -g0" -DRDMATOP_WERROR=ON \
  -DRDMATOP_WITH_VERBS=OFF -DRDMATOP_BUILD_TESTS=OFF >/dev/null
cmake --build "$dir" -j"$(nproc)" --target rdmatop
bin=$dir/bin/rdmatop

fail() {
  echo "no-verbs check: $*" >&2
  exit 1
}
if ldd "$bin" | grep -E 'libibverbs|librdmacm'; then
  fail "the binary links a verbs library"
fi
echo "no-verbs check: links neither libibverbs nor librdmacm"

"$bin" demo pfc-storm --ticks 5 >/dev/null || fail "the demo failed"
host=tests/fixtures/hosts/mlx5
status=0
"$bin" report --sysfs-root "$host/sys" --ethtool-dir "$host/ethtool" >/dev/null || status=$?
[ "$status" -le 2 ] || fail "report on $host exited $status"
echo "no-verbs check: the demo and a report run"

expect="built without libibverbs"
out=$("$bin" probe --transport rc_send --count 1 --timeout 200 127.0.0.1:1 2>&1 || true)
grep -q "$expect" <<<"$out" || fail "an RC probe did not say the build has no verbs: $out"
status=0
out=$(timeout 10 "$bin" responder --rdma-only --listen 127.0.0.1 --port 1 2>&1) || status=$?
[ "$status" -ne 0 ] && [ "$status" -ne 124 ] || fail "responder --rdma-only did not fail ($status)"
grep -q "$expect" <<<"$out" || fail "responder --rdma-only did not say why: $out"
echo "no-verbs check: an RC probe and an rdma_cm responder fail with the build's error"
