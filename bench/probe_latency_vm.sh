#!/bin/bash
# rdmatop's RC RTT against perftest `ib_send_lat` and `ibv_rc_pingpong` on the same rxe device,
# in one VM run, same message size and iteration count, interleaved over several rounds.
# Run it in the Soft-RoCE VM (docs/vm.md):
#   tests/vm/rxe-run -- bash bench/probe_latency_vm.sh build/bin/rdmatop [ITERS] [ROUNDS] [SIZE]
# Prints per round and as the median over rounds: rdmatop's RTT p50/p99, ib_send_lat's (its
# one-way t_typical and 99% percentile doubled: it reports half the round trip; server on CQ
# events like the responder, client busy-polling like the prober: lib.sh send_lat_rtt_us) and
# ibv_rc_pingpong's usec/iter (a mean round trip: it has no percentiles), and the ratios.
set -euo pipefail
# shellcheck source=tests/vm/cases/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../tests/vm/cases/lib.sh"

rdmatop="$1"
n="${2:-500}"
rounds="${3:-3}"
size="${4:-64}"
ip="$RXE_VM_IP"
gid="$RXE_VM_GID_INDEX"
cd "$RXE_VM_DIR"

"$rdmatop" responder --listen "$ip" >responder.log 2>&1 &
responder=$!
trap 'kill $responder 2>/dev/null || true' EXIT

rdmatop_rtt() {
  local out deadline=$((SECONDS + 60))
  while :; do
    out=$("$rdmatop" probe "$ip" --transport rc_send --sizes "$size" --count "$n" --rate 1000 \
      --timeout 5000 --json 2>/dev/null) || true
    if jq -e ".probes[0].answered == $n" <<<"$out" >/dev/null 2>&1; then break; fi
    ((SECONDS < deadline)) || fail "rdmatop probe failed: $out"
    sleep 0.2
  done
  jq -r '.probes[0].window | "\(.p50 * 1e6) \(.p99 * 1e6)"' <<<"$out"
}

rc_pingpong_rtt() {
  ibv_rc_pingpong -d rxe0 -g "$gid" -s "$size" -n "$n" >/dev/null 2>&1 &
  local server=$!
  local out
  out=$(rc_pingpong_client "$ip" -d rxe0 -g "$gid" -s "$size" -n "$n")
  wait "$server" || true
  usec_per_iter "$out"
}

printf '%-6s %12s %12s %14s %14s %16s %10s %10s %10s\n' round rdmatop_p50 rdmatop_p99 \
  send_lat_p50 send_lat_p99 rc_pingpong_avg p50_ratio p99_ratio pp_ratio
rows=()
for ((r = 1; r <= rounds; r++)); do
  read -r a50 a99 < <(rdmatop_rtt)
  read -r s50 s99 < <(send_lat_rtt_us "$ip" "$size" "$n")
  pp=$(rc_pingpong_rtt)
  row=$(awk -v r="$r" -v a50="$a50" -v a99="$a99" -v s50="$s50" -v s99="$s99" -v pp="$pp" \
    'BEGIN { printf "%-6s %12.1f %12.1f %14.1f %14.1f %16.1f %10.3f %10.3f %10.3f",
             r, a50, a99, s50, s99, pp, a50 / s50, a99 / s99, a50 / pp }')
  echo "$row"
  rows+=("$row")
done
median_row="median"
for col in 2 3 4 5 6 7 8 9; do
  median_row+=" $(printf '%s\n' "${rows[@]}" | awk -v c="$col" '{ print $c }' | sort -g |
    awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')"
done
echo "$median_row"
echo "(microseconds of round trip; $n iterations of $size B per tool and round; ratios are rdmatop / tool)"
