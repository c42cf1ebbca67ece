#!/bin/bash
# Inside the rxe VM: `rdmatop report --json --interval 2` while ib_send_bw traffic runs on rxe0.
# The rates of the rxe packet counters (sent_pkts -> rdma_packets_total{direction="tx"},
# rcvd_pkts -> {direction="rx"}) must be non-zero and plausible against the counters read
# before and after the report:
#   * state "ok" and per_second > 0 for both;
#   * the reported value lies between the counter before and after the report;
#   * per_second * interval_seconds (the measured interval, >= the requested one) <= growth of
#     the counter around the whole report (+10% slack): a rate cannot claim more packets than
#     were counted;
#   * per_second >= 1/10 of the average rate over the report's whole run (steady traffic;
#     generous for emulation noise, still catches unit errors);
#   * tx ~ rx (within 2x): on one device every packet sent is also received.
# No absolute rates or latencies are asserted (emulation speed varies 10x).
# Usage: report-traffic.sh RDMATOP_BINARY
set -euo pipefail
# shellcheck source=tests/vm/cases/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

rdmatop="${1:?usage: report-traffic.sh RDMATOP_BINARY}"
[[ -x "$rdmatop" ]] || fail "not executable: $rdmatop"
interval=2
tmp=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT

# Duration mode (-D) long enough to outlast the report; both ends are killed afterwards.
bw=(ib_send_bw -d rxe0 -x "$RXE_VM_GID_INDEX" -D 60 -p 18515)
"${bw[@]}" >"$tmp/server.log" 2>&1 &
pids+=($!)
for ((i = 0; ; i++)); do # the server listens on TCP for its connection setup
  ss -Hltn 'sport = :18515' | grep -q . && break
  kill -0 "${pids[0]}" 2>/dev/null || { cat "$tmp/server.log"; fail "ib_send_bw server died"; }
  ((i < 300)) || fail "ib_send_bw server not listening after 30 s"
  sleep 0.1
done
"${bw[@]}" "$RXE_VM_IP" >"$tmp/client.log" 2>&1 &
pids+=($!)

# Wait until packets flow.
start=$(hw_counter rxe0 1 sent_pkts)
for ((i = 0; ; i++)); do
  now=$(hw_counter rxe0 1 sent_pkts)
  ((now > start + 100)) && break
  kill -0 "${pids[1]}" 2>/dev/null || { cat "$tmp/client.log"; fail "ib_send_bw client died"; }
  ((i < 300)) || fail "no traffic after 30 s (sent_pkts $start -> $now)"
  sleep 0.1
done

t0=$EPOCHREALTIME
tx0=$(hw_counter rxe0 1 sent_pkts)
rx0=$(hw_counter rxe0 1 rcvd_pkts)
"$rdmatop" report --json --interval "$interval" >"$tmp/report.json" ||
  fail "rdmatop report exited $?"
tx1=$(hw_counter rxe0 1 sent_pkts)
rx1=$(hw_counter rxe0 1 rcvd_pkts)
t1=$EPOCHREALTIME
kill -0 "${pids[1]}" 2>/dev/null ||
  { cat "$tmp/client.log"; fail "traffic stopped before the report was done"; }

# One jq over the report: the two series as "origin state per_second value", the raw counters
# and the interval.
jq -r '.interval_seconds as $iv
  | .devices[] | select(.name == "rxe0") | .ports[] | select(.port == 1)
  | (.series[] | select(.origin == "hw_counters/sent_pkts" or .origin == "hw_counters/rcvd_pkts")
     | select(.name == "rdma_packets_total")
     | "series \(.origin | sub("hw_counters/"; "")) \(.labels.direction)"
       + " \(.rate.state) \(.rate.per_second) \(.value)"),
    "raw \(.hw_counters.sent_pkts) \(.hw_counters.rcvd_pkts)",
    "interval \($iv)"' "$tmp/report.json" >"$tmp/facts" || fail "unexpected report JSON"
cat "$tmp/facts"
echo "sysfs around the report: sent_pkts $tx0 -> $tx1, rcvd_pkts $rx0 -> $rx1"

awk -v tx0="$tx0" -v tx1="$tx1" -v rx0="$rx0" -v rx1="$rx1" -v want_iv="$interval" \
  -v wall="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" '
  function bad(msg) { print "FAIL: " msg; failed = 1 }
  $1 == "interval" { iv = $2 }
  $1 == "raw" { raw_tx = $2; raw_rx = $3 }
  $1 == "series" {
    c = $2; dir[c] = $3; st[c] = $4; ps[c] = $5; val[c] = $6; seen[c] = 1 }
  END {
    # interval_seconds is the measured time between the two snapshots: at least the requested one.
    if (!(iv >= 0.9 * want_iv)) bad("interval_seconds " iv " is shorter than the requested " want_iv)
    lo["sent_pkts"] = tx0; hi["sent_pkts"] = tx1; d["sent_pkts"] = "tx"
    lo["rcvd_pkts"] = rx0; hi["rcvd_pkts"] = rx1; d["rcvd_pkts"] = "rx"
    for (c in lo) {
      if (!seen[c]) { bad("no rdma_packets_total series from hw_counters/" c); continue }
      if (dir[c] != d[c]) bad(c ": direction " dir[c] " != " d[c])
      if (st[c] != "ok") bad(c ": rate state " st[c] " != ok")
      if (!(ps[c] > 0)) bad(c ": rate " ps[c] " is not > 0")
      if (val[c] < lo[c] || val[c] > hi[c]) bad(c ": value " val[c] " not within [" lo[c] ", " hi[c] "]")
      if (ps[c] * iv > (hi[c] - lo[c]) * 1.1)
        bad(c ": rate " ps[c] "/s over " iv " s claims more than the " hi[c] - lo[c] " packets counted")
      # Steady traffic: the rate is near the average over the whole report. 10x slack for the
      # noise of emulation; catches unit errors (per ms, per interval) without timing anything.
      if (ps[c] < (hi[c] - lo[c]) / wall / 10)
        bad(c ": rate " ps[c] "/s is far below the average " (hi[c] - lo[c]) / wall "/s around the report")
    }
    if (raw_tx != val["sent_pkts"] || raw_rx != val["rcvd_pkts"]) bad("series values differ from hw_counters")
    if (ps["rcvd_pkts"] > 0 && (ps["sent_pkts"] / ps["rcvd_pkts"] > 2 || ps["rcvd_pkts"] / ps["sent_pkts"] > 2))
      bad("tx rate " ps["sent_pkts"] " and rx rate " ps["rcvd_pkts"] " differ by more than 2x")
    if (failed) exit 1
    printf "PASS: rxe0 tx %.0f pkt/s, rx %.0f pkt/s over %s s; values within the sysfs window\n",
      ps["sent_pkts"], ps["rcvd_pkts"], iv
  }' "$tmp/facts"
