#!/usr/bin/env bash
# Load test (#22 item 2): `rdmatop responder --tcp-only` on loopback under a connection flood
# (127.0.0.2) and 64 trickling holders from four addresses (valid hello, then a frame one byte
# at a time), while a real `rdmatop probe` from 127.0.0.1 must get every ping answered. Before
# the fix the holders kept all 64 slots for ever and the prober was refused ("responder busy").
# Bounded: the attack runs 20 s, the prober 12 s of it. Counts only, no timing asserted.
# Usage: responder_flood_test.sh RDMATOP
source "$(dirname "$0")/../exporter/lib.sh"  # need, fail, free_port, cleanup of $pids
need python3
bin=$1
port=$(free_port) || fail "no free port"
"$bin" responder --tcp-only --listen 127.0.0.1 --port "$port" 2>"$work/responder.log" &
pids+=($!)
for _ in $(seq 1 100); do
  grep -q "listening on" "$work/responder.log" && break
  kill -0 "${pids[-1]}" 2>/dev/null || { cat "$work/responder.log" >&2; fail "responder exited"; }
  sleep 0.1
done
python3 "$(dirname "$0")/responder_attack.py" "$port" 20 >"$work/attack.out" &
attack=$!
pids+=($attack)
sleep 3  # the holders take the slots first
rc=0
"$bin" probe "127.0.0.1:$port" --transport tcp --duration 12 --rate 5 >"$work/probe.out" 2>&1 || rc=$?
wait "$attack" || true
cat "$work/attack.out"
grep -v '^#' "$work/probe.out" | head -5
grep -c 'refused' "$work/responder.log" | sed 's/^/responder refusal lines: /'
[ "$rc" = 0 ] || fail "the prober did not get every ping answered (exit $rc)"
grep -q 'held [1-9]' "$work/attack.out" || fail "the holders never got a connection: the attack did not run"
grep -q 'survived 0' "$work/attack.out" || fail "a trickling holder survived its whole frame"
echo "PASS"
