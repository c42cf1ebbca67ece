#!/bin/bash
# One VM: rdmatop's RC round trip against perftest `ib_send_lat` on the same rxe device, like for
# like (docs/probes.md, "Accuracy against perftest"):
#   - back to back: `rdmatop probe --burst N --count 1` sends its N pings in a row on one
#     connection, as ib_send_lat runs its N iterations;
#   - the same SEND message: rdmatop's payload plus its 16-byte frame header is ib_send_lat's -s;
#   - the same completion modes: both sides busy-poll (`rdmatop responder --busy-poll`, an
#     ib_send_lat server without -e; both clients busy-poll by default);
#   - the same CPUs: every client on vCPU 0 and every server on vCPU 1 (taskset, lib.sh
#     pin_clients_and_servers), as perftest advises; unpinned, where the guest scheduler put the
#     two busy pollers and rxe's kernel work moved either tool's p50 by up to +-30% per round;
#   - interleaved rounds, alternating which tool goes first, so a load change on the host hits
#     both alike; the busy responder runs only during its own measurement, so it never takes a vCPU
#     from perftest. The median of the per-round p50 ratios is what is judged, on a host quiet
#     enough to judge it: where either tool's median p50 is more than 1.5x its lowest, load
#     moved the round trips more than the bound below allows for (in three runs on a shared
#     2-core host like CI's, one tool's p50 doubled in some rounds and the other's in others,
#     and the median ratio was 0.75, 0.99 and 1.47 with no change to the probes), and the
#     comparison is skipped with the figures (exit 77) after every other check has passed.
# Also printed, not judged: the default deployment's modes (the responder sleeping on CQ events
# against an `ib_send_lat -e` server) and rdmatop with spaced probes (--rate 1000).
#
# Asserted: every ping answered, no errors, plausible RTTs; long back-to-back runs (3 x --burst
# 1000, busy responder: send completions lag the echoes, so a miscounted send queue shows up as
# QP errors and reconnects) without a single QP error; the busy/busy median p50 ratio within
# [0.67, 1.25], which catches a regression (the gap was 1.2-1.5 before session 5). The issue's
# 10% is printed every run and asserted with PROBE_LATENCY_STRICT=1: measured pinned on a quiet
# host the median is 1.03-1.07 (docs/probes.md, "Accuracy against perftest"), but single rounds
# under TCG still range 0.75-1.6, so a median of 7 rounds crosses 1.10 now and then by chance,
# and a CI gate must not fail by chance. Event mode is 0.55-0.75 (ib_send_lat -e's server also
# sleeps for each send completion). The old 4x gap was spaced probes against back-to-back
# perftest. Rounds whose p50 reaches 1 ms for either tool are starvation (see below), not judged.
# Environment: PROBE_LATENCY_ITERS (1000), PROBE_LATENCY_ROUNDS (7), PROBE_LATENCY_STRICT (0),
# PROBE_LATENCY_LONG (1000: pings per long run), PROBE_LATENCY_BUDGET_S (200: seconds after
# which no new round starts; the VM run is killed at 400 s, and a starved round takes ~40 s).
set -euo pipefail
# shellcheck source=tests/vm/cases/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

rdmatop="$1"
n=${PROBE_LATENCY_ITERS:-1000}
rounds=${PROBE_LATENCY_ROUNDS:-7}
message=64                 # bytes of each SEND on the wire, both tools
payload=$((message - 16))  # rdmatop's frame header is 16 bytes (docs/probe-protocol.md)
ip="$RXE_VM_IP"
cd "$RXE_VM_DIR"
pin_clients_and_servers

trap stop_probe_responder EXIT
start_responder() { start_probe_responder "$rdmatop" "$ip" "$@"; }

back_to_back() { probe_rtt_us "$rdmatop" "$ip" "$n" --sizes "$payload" --burst "$n" --count 1; }

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# A round where either tool's p50 reaches 1 ms measured starvation, not the tools: with both
# sides busy-polling on the VM's two vCPUs, rxe's deferred kernel work (ksoftirqd) can wait
# whole scheduler ticks behind them, and such rounds show p50s of 8 ms (2 ticks at HZ=250) for
# either tool, at random. They are printed, not judged, and replaced by extra rounds (up to
# twice the rounds asked for).
starved() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= 1000 || b >= 1000) }'; }

rdmatop_busy() {
  start_responder --busy-poll
  read -r p50 p99 < <(back_to_back)
  stop_probe_responder
  [[ -n "${p50:-}" ]] || fail "round $r: no result from rdmatop probe --burst"
  awk -v a="$p50" -v b="$p99" 'BEGIN { exit !(1 <= a && a <= b && b < 1e6) }' ||
    fail "round $r: implausible RTTs: p50 $p50 p99 $p99 us"
}
perftest_busy() {
  read -r perf_p50 perf_p99 < <(send_lat_rtt_us "$ip" "$message" "$n" busy)
  [[ -n "${perf_p50:-}" ]] || fail "round $r: no latency line from ib_send_lat"
}

ratios=()
rdmatop_p50s=()
perftest_p50s=()
event_ratios=()
starved_rounds=0
budget=${PROBE_LATENCY_BUDGET_S:-200}
for ((r = 1; ${#ratios[@]} < rounds && r <= 2 * rounds && SECONDS < budget; r++)); do
  # Alternate which tool goes first, so a load drift within a round favours neither.
  if ((r % 2)); then
    rdmatop_busy
    perftest_busy
  else
    perftest_busy
    rdmatop_busy
  fi
  ratio=$(awk -v a="$p50" -v b="$perf_p50" 'BEGIN { printf "%.3f", a / b }')
  verdict="p50 ratio $ratio"
  if starved "$p50" "$perf_p50"; then
    verdict="STARVED (a p50 >= 1 ms), not judged"
    starved_rounds=$((starved_rounds + 1))
  else
    ratios+=("$ratio")
    rdmatop_p50s+=("$p50")
    perftest_p50s+=("$perf_p50")
  fi
  printf 'round %d, busy/busy: rdmatop RTT p50 %.1f us p99 %.1f us | ib_send_lat RTT (2 x one-way) p50 %.1f us p99 %.1f us | %s\n' \
    "$r" "$p50" "$p99" "$perf_p50" "$perf_p99" "$verdict"

  start_responder
  read -r e50 e99 < <(back_to_back)
  stop_probe_responder
  read -r pe50 pe99 < <(send_lat_rtt_us "$ip" "$message" "$n")
  [[ -n "${e50:-}" && -n "${pe50:-}" ]] || fail "round $r: no event-mode result"
  event_ratios+=("$(awk -v a="$e50" -v b="$pe50" 'BEGIN { printf "%.3f", a / b }')")
  printf 'round %d, events at the server (not judged): rdmatop p50 %.1f us p99 %.1f us | ib_send_lat -e p50 %.1f us p99 %.1f us | p50 ratio %s\n' \
    "$r" "$e50" "$e99" "$pe50" "$pe99" "${event_ratios[-1]}"
done
# Fewer than three judged rounds make no median worth judging: a host loaded enough to starve
# most rounds (other VMs or builds on the same cores) is said to be, not failed.
if ((${#ratios[@]} < 3)); then
  echo "SKIP: only ${#ratios[@]} of $((${#ratios[@]} + starved_rounds)) busy/busy rounds in" \
    "${budget} s were not starved (a p50 >= 1 ms): the host is too loaded to compare latencies"
  exit 77
fi
start_responder
read -r spaced50 spaced99 < <(probe_rtt_us "$rdmatop" "$ip" "$n" --sizes "$payload" --count "$n" \
  --rate 1000)
stop_probe_responder
printf 'spaced, --rate 1000 (not judged): rdmatop RTT p50 %.1f us p99 %.1f us\n' \
  "${spaced50:-0}" "${spaced99:-0}"

# probe_rtt_us fails unless all pings are answered with qp_errors 0, so without a reconnect
# either (the runner reconnects only after a ping that was not answered, probes/runner.cpp).
long=${PROBE_LATENCY_LONG:-1000}
start_responder --busy-poll
for r in 1 2 3; do
  read -r l50 l99 < <(probe_rtt_us "$rdmatop" "$ip" "$long" --sizes "$payload" --burst "$long" \
    --count 1)
  [[ -n "${l50:-}" ]] || fail "long run $r: no result from rdmatop probe --burst $long"
  printf 'long run %d: %d pings back to back, all answered, no QP errors (p50 %.1f us p99 %.1f us)\n' \
    "$r" "$long" "$l50" "$l99"
done
stop_probe_responder

m=$(printf '%s\n' "${ratios[@]}" | median)
em=$(printf '%s\n' "${event_ratios[@]}" | median)
echo "median p50 ratio rdmatop/ib_send_lat over ${#ratios[@]} judged rounds ($starved_rounds starved;" \
  "$n pings of $message B):" \
  "busy/busy $m, events at the server $em"
# How far load moved a tool's round trip (its p50s, one per line): their median over their lowest.
spread() {
  local p50s
  p50s=$(cat)
  awk -v med="$(median <<<"$p50s")" -v low="$(sort -g <<<"$p50s" | head -n 1)" \
    'BEGIN { printf "%.2f", med / low }'
}
max_spread=1.5
# The judged band of the busy/busy median ratio (see the header), and what every outcome
# below has already checked.
low_ratio=0.67
high_ratio=1.25
checked="every ping answered, no QP errors in long runs, plausible RTTs"
rdmatop_spread=$(printf '%s\n' "${rdmatop_p50s[@]}" | spread)
perftest_spread=$(printf '%s\n' "${perftest_p50s[@]}" | spread)
echo "p50 over the judged rounds, median / lowest: rdmatop $rdmatop_spread, ib_send_lat" \
  "$perftest_spread"
if awk -v a="$rdmatop_spread" -v b="$perftest_spread" -v max="$max_spread" \
  'BEGIN { exit !(a > max || b > max) }'; then
  echo "SKIP: $checked; the latency comparison is not judged: a tool's median p50 is more" \
    "than ${max_spread}x its lowest (rdmatop $rdmatop_spread, ib_send_lat $perftest_spread)," \
    "the host is too loaded to compare latencies within [$low_ratio, $high_ratio]" \
    "(busy/busy median ratio $m)"
  exit 77
fi
awk -v m="$m" -v low="$low_ratio" -v high="$high_ratio" \
  'BEGIN { exit !(m >= low && m <= high) }' ||
  fail "rdmatop's busy/busy RC p50 is not within [$low_ratio, $high_ratio] x ib_send_lat's" \
    "(median $m)"
if awk -v m="$m" 'BEGIN { exit !(m >= 0.9 && m <= 1.1) }'; then
  echo "PASS: rdmatop RC p50 within 10% of ib_send_lat on rxe0 (busy/busy median ratio $m)"
elif [[ "${PROBE_LATENCY_STRICT:-0}" == 1 ]]; then
  fail "rdmatop's busy/busy RC p50 is not within 10% of ib_send_lat's (median ratio $m)"
else
  echo "NOT ASSERTED (see the header): busy/busy median ratio $m is outside 10% in this run;" \
    "PROBE_LATENCY_STRICT=1 makes this a failure"
  echo "PASS: $checked, busy/busy p50 within [$low_ratio, $high_ratio] x ib_send_lat"
fi
