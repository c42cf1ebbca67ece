# shellcheck shell=bash
# Helpers for the checks that run inside the rxe VM (sourced). Every process costs ~50 ms under
# TCG (docs/vm.md#recipe-pitfalls, item 5), so these avoid per-item loops of external commands.

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# One hw_counters value of a port, read by the shell itself (no process).
hw_counter() { # device port name
  local v
  read -r v <"/sys/class/infiniband/$1/ports/$2/hw_counters/$3" || fail "cannot read $1/$2/$3"
  echo "$v"
}

# The client side of an ibv_rc_pingpong pair. The server is started in the background just
# before and needs a moment to listen (fork+exec is slow under TCG), so a refused connection is
# retried; any other failure is final. Prints the client's output.
rc_pingpong_client() { # server-ip [ibv_rc_pingpong options...]
  local ip="$1" out rc deadline=$((SECONDS + 60))
  shift
  while :; do
    rc=0
    out=$("${client_cpu[@]}" ibv_rc_pingpong "$@" "$ip" 2>&1) || rc=$?
    ((rc == 0)) && break
    if [[ "$out" == *"Couldn't connect"* ]] && ((SECONDS < deadline)); then
      sleep 0.2
      continue
    fi
    echo "$out" >&2
    fail "ibv_rc_pingpong $* $ip exited $rc"
  done
  echo "$out"
}

# usec/iter from ibv_rc_pingpong's "N iters in S seconds = U usec/iter" line.
usec_per_iter() {
  awk '/usec\/iter/ { for (i = 1; i < NF; i++) if ($(i + 1) == "usec/iter") print $i }' <<<"$1"
}

# Latency comparisons pin every client to vCPU 0 and every server to vCPU 1, the same for each
# tool (perftest's own advice: taskset), after `pin_clients_and_servers`. Unpinned, the guest
# scheduler places the two busy-polling processes and rxe's kernel work anew for every run, and
# under TCG that moved one tool's p50 by up to +-30% from round to round; pinned, mostly +-10%.
# Empty (no pinning) by default and on a guest with one vCPU.
client_cpu=()
server_cpu=()
pin_clients_and_servers() {
  if (($(nproc) >= 2)); then
    client_cpu=(taskset -c 0)
    server_cpu=(taskset -c 1)
  fi
}

# Round-trip p50 and p99 in microseconds ("P50 P99") of ib_send_lat on rxe0, server and client in
# this VM. perftest reports half the round trip (t_typical is the median of (t[i+1] - t[i]) / 2),
# so both are doubled. The server sleeps on CQ events (-e) like rdmatop's responder, unless the
# fourth argument is "busy" (like `rdmatop responder --busy-poll`); the client busy-polls like
# `rdmatop probe`. The server needs a moment to listen, so the client retries.
send_lat_rtt_us() { # server-ip size iterations [busy]
  local ip="$1" size="$2" n="$3" out rc deadline=$((SECONDS + 60)) server events=-e
  [[ "${4:-}" == busy ]] && events=
  # shellcheck disable=SC2086 # $events is one flag or none
  "${server_cpu[@]}" ib_send_lat -d rxe0 -x "$RXE_VM_GID_INDEX" -s "$size" -n "$n" -F $events \
    >/dev/null 2>&1 &
  server=$!
  while :; do
    rc=0
    out=$("${client_cpu[@]}" ib_send_lat -d rxe0 -x "$RXE_VM_GID_INDEX" -s "$size" -n "$n" -F \
      "$ip" 2>&1) || rc=$?
    ((rc == 0)) && break
    if ((SECONDS < deadline)); then
      sleep 0.2
      continue
    fi
    echo "$out" >&2
    fail "ib_send_lat exited $rc"
  done
  wait "$server" || true
  # Columns: #bytes #iterations t_min t_max t_typical t_avg t_stdev 99% 99.9%
  awk -v s="$size" '$1 == s && NF >= 9 { printf "%.3f %.3f\n", 2 * $5, 2 * $8 }' <<<"$out"
}

# Round-trip p50 and p99 in microseconds ("P50 P99") of `rdmatop probe --transport rc_send`
# against the responder on SERVER-IP, with the given probe options (e.g. `--burst N --count 1`
# for N pings back to back, or `--count N --rate R` for spaced ones), run in the current
# directory (its stderr goes to probe.err). Every one of the EXPECTED pings must be answered,
# else it fails (printing the probe's output).
probe_rtt_us() { # rdmatop server-ip expected probe-options...
  local rdmatop="$1" ip="$2" want="$3" out rc=0
  shift 3
  out=$("${client_cpu[@]}" "$rdmatop" probe "$ip" --transport rc_send --timeout 5000 --json "$@" \
    2>probe.err) ||
    rc=$?
  if ! jq -e ".probes[0] | .answered == $want and .sent == $want and .qp_errors == 0" \
    <<<"$out" >/dev/null 2>&1; then
    echo "$out" >&2
    cat probe.err >&2
    fail "rdmatop probe $* (exit $rc): not all of $want pings answered"
  fi
  jq -r '.probes[0].window | "\(.p50 * 1e6) \(.p99 * 1e6)"' <<<"$out"
}

# start_probe_responder RDMATOP IP [responder options...]: an RDMA-only `rdmatop responder` on IP
# in the background (its pid in $probe_responder, its output appended to responder.log),
# waited for until it answers. stop_probe_responder ends it; safe to call when none runs (EXIT
# traps). One at a time: a busy-polling responder started only for its own measurement never
# takes a vCPU from the next tool.
probe_responder=
start_probe_responder() {
  local rdmatop="$1" ip="$2"
  shift 2
  "${server_cpu[@]}" "$rdmatop" responder --listen "$ip" --rdma-only "$@" >>responder.log 2>&1 &
  probe_responder=$!
  wait_for_responder "$rdmatop" "$ip" rc_send
}
stop_probe_responder() {
  if [[ -n "$probe_responder" ]]; then
    kill "$probe_responder" 2>/dev/null || true
    wait "$probe_responder" 2>/dev/null || true
  fi
  probe_responder=
}

# wait_for_responder RDMATOP HOST TRANSPORTS: until one probe on each transport is answered
# (up to 60 s), so a measurement's attempts are not spent on connect backoff while the responder
# is still starting (`rdmatop probe --count` counts attempts).
wait_for_responder() {
  local deadline=$((SECONDS + 60))
  until "$1" probe "$2" --event --timeout 1000 --transport "$3" --sizes 64 --count 1 \
    >/dev/null 2>&1; do
    ((SECONDS < deadline)) || fail "the responder on $2 never answered $3"
    sleep 0.5
  done
}
