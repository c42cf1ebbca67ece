#!/bin/bash
# rdmatop's RC RTT against perftest `ib_send_lat` and `ibv_rc_pingpong` on the same rxe device,
# in one VM run, interleaved over several rounds. Run it in the Soft-RoCE VM (docs/vm.md):
#   tests/vm/rxe-run -- bash bench/probe_latency_vm.sh build/bin/rdmatop [ITERS] [ROUNDS] [BYTES]
# Like for like in every compared pair (docs/probes.md, "Accuracy against perftest"): BYTES-byte
# SEND messages (rdmatop's payload is BYTES - 16, its frame header making up the rest), ITERS
# round trips back to back (`rdmatop probe --burst ITERS --count 1`), clients busy-polling, and
# the server side either busy-polling too (`rdmatop responder --busy-poll`, ib_send_lat and
# ibv_rc_pingpong without -e) or sleeping on CQ events (the responder's default; ib_send_lat -e).
# ib_send_lat's numbers are its one-way t_typical and 99% percentile doubled (it reports half
# the round trip; lib.sh send_lat_rtt_us); ibv_rc_pingpong prints a mean round trip
# (usec/iter), no percentiles. For context, rdmatop with spaced probes (--rate 1000), whose p50
# also carries the idle CPUs' wake-up. A busy responder runs only during its own measurement.
set -euo pipefail
# shellcheck source=tests/vm/cases/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../tests/vm/cases/lib.sh"

rdmatop="$1"
n="${2:-1000}"
rounds="${3:-5}"
message="${4:-64}"
payload=$((message - 16))
((payload >= 1)) || fail "BYTES must be at least 17 (16 bytes of rdmatop frame header)"
ip="$RXE_VM_IP"
gid="$RXE_VM_GID_INDEX"
cd "$RXE_VM_DIR"
pin_clients_and_servers  # every tool: clients on vCPU 0, servers on vCPU 1 (lib.sh)

trap stop_probe_responder EXIT
start_responder() { start_probe_responder "$rdmatop" "$ip" "$@"; }
rdmatop_rtt() { # responder options...: "P50 P99" of a back-to-back burst
  start_responder "$@"
  probe_rtt_us "$rdmatop" "$ip" "$n" --sizes "$payload" --burst "$n" --count 1
  stop_probe_responder
}
rc_pingpong_rtt() {
  "${server_cpu[@]}" ibv_rc_pingpong -d rxe0 -g "$gid" -s "$message" -n "$n" >/dev/null 2>&1 &
  local server=$!
  local out
  out=$(rc_pingpong_client "$ip" -d rxe0 -g "$gid" -s "$message" -n "$n")
  wait "$server" || true
  usec_per_iter "$out"
}

printf '%-6s %8s %8s %8s %8s %8s | %8s %8s | %8s | %7s %7s %7s %7s\n' round rdm_p50 rdm_p99 \
  lat_p50 lat_p99 pp_avg ev_p50 lat_e50 spc_p50 r_p50 r_p99 r_pp r_ev50
rows=()
for ((r = 1; r <= rounds; r++)); do
  read -r a50 a99 < <(rdmatop_rtt --busy-poll)
  read -r s50 s99 < <(send_lat_rtt_us "$ip" "$message" "$n" busy)
  pp=$(rc_pingpong_rtt)
  read -r e50 _ < <(rdmatop_rtt)
  read -r t50 _ < <(send_lat_rtt_us "$ip" "$message" "$n")
  start_responder
  read -r z50 _ < <(probe_rtt_us "$rdmatop" "$ip" "$n" --sizes "$payload" --count "$n" --rate 1000)
  stop_probe_responder
  row=$(awk -v r="$r" -v a50="$a50" -v a99="$a99" -v s50="$s50" -v s99="$s99" -v pp="$pp" \
    -v e50="$e50" -v t50="$t50" -v z50="$z50" \
    'BEGIN { printf "%-6s %8.1f %8.1f %8.1f %8.1f %8.1f | %8.1f %8.1f | %8.1f | %7.3f %7.3f %7.3f %7.3f",
             r, a50, a99, s50, s99, pp, e50, t50, z50, a50 / s50, a99 / s99, a50 / pp, e50 / t50 }')
  echo "$row"
  rows+=("$row")
done
median_row=$(printf '%-6s' median)
for col in 2 3 4 5 6 8 9 11 13 14 15 16; do
  [[ $col == 8 || $col == 11 || $col == 13 ]] && median_row+=" |"
  median_row+=" $(printf '%s\n' "${rows[@]}" | awk -v c="$col" '{ print $c }' | sort -g |
    awk '{ v[NR] = $1 } END { printf "%8s", v[int((NR + 1) / 2)] }')"
done
echo "$median_row"
echo "(us of round trip; $n round trips of $message-byte SENDs per tool and round." \
  "rdm: rdmatop back to back, responder --busy-poll; lat: ib_send_lat, server busy-polling;" \
  "pp: ibv_rc_pingpong mean, both busy; ev: rdmatop, responder on CQ events; lat_e: ib_send_lat" \
  "-e; spc: rdmatop spaced at --rate 1000, responder on events; r_p50/r_p99/r_pp: rdm / lat," \
  "lat, pp; r_ev50: ev / lat_e)"
