#!/usr/bin/env bash
# rdmatop's rule engine against Prometheus's (promtool) on identical work: the built-in pack over
# the same synthetic ports, evaluated every interval for 10 minutes, as a promtool unit-test file.
# Usage: bench/rules_vs_promtool.sh BUILD_DIR [PORTS] [RUNS]
set -euo pipefail
build=${1:?build dir}
ports=${2:-20}
runs=${3:-3}
command -v promtool >/dev/null || { echo "promtool missing (apt-get install prometheus)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/bin/rdmatop" rules export --format prometheus -o "$work/pack.yaml"
"$build/bench/rdmatop_bench_rules" --emit-promtool-test "$work" --ports "$ports"

best() {  # best-of-N wall time in ms of a command; also prints its exit status once
  local best_ms=999999999 rc=0
  for _ in $(seq "$runs"); do
    local start end
    start=$(date +%s%N)
    "$@" >"$work/out.txt" 2>&1 && rc=0 || rc=$?
    end=$(date +%s%N)
    local ms=$(( (end - start) / 1000000 ))
    (( ms < best_ms )) && best_ms=$ms
  done
  echo "$best_ms $rc"
}
read -r rd_ms rd_rc < <(best "$build/bin/rdmatop" rules test "$work/bench_test.yaml")
read -r pt_ms pt_rc < <(best promtool test rules "$work/bench_test.yaml")
echo "rdmatop rules test:  ${rd_ms} ms (exit $rd_rc)"
echo "promtool test rules: ${pt_ms} ms (exit $pt_rc)"
awk -v a="$rd_ms" -v b="$pt_ms" 'BEGIN { printf "ratio rdmatop/promtool: %.2f\n", (b > 0 ? a / b : 0) }'
[ "$rd_rc" = "$pt_rc" ] && echo "both engines agree on pass/fail" || echo "ENGINES DISAGREE on pass/fail"
