#!/bin/bash
# One VM: `rdmatop responder` on rxe0 against hostile peers, then a good prober.
#   - TCP: random garbage gets a refusal and a close; a truncated hello is closed after the
#     handshake timeout; 12 silent connections against --max-connections 3 are refused beyond
#     the cap, with the reason in the log;
#   - rdma_cm: rping and ucmatose connect with private data that is not a probe hello (rejected:
#     bad hello); a fourth rdmatop prober from the same address is refused "responder busy"
#     by the per-address share (--max-connections-per-peer 3 of --max-connections 4, #22), and
#     one prober is SIGKILLed mid-run;
#   - no QP or MR is left behind (rdma resource show, filtered by the responder's pid);
#   - afterwards rc_send, rc_write and tcp probes are all answered, and SIGTERM ends the
#     responder with exit code 0.
set -euo pipefail
# shellcheck source=tests/vm/cases/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

rdmatop="$1"
ip="$RXE_VM_IP"
port=19875
cd "$RXE_VM_DIR"

"$rdmatop" responder --listen "$ip" --max-connections 4 --max-connections-per-peer 3 \
  >responder.log 2>&1 &
responder=$!
holders=()
trap 'kill -KILL $responder "${holders[@]}" 2>/dev/null || true' EXIT

# Waits (bounded) until the responder's log holds a line matching $1.
wait_log() {
  local deadline=$((SECONDS + 60))
  until grep -q -- "$1" responder.log; do
    ((SECONDS < deadline)) || { cat responder.log >&2; fail "responder log never showed: $1"; }
    sleep 0.2
  done
}
wait_log "listening on $ip port $port: tcp + rdma_cm"

# QPs / MRs the responder holds now, from the kernel's resource tracking.
held() { # qp|mr
  rdma resource show "$1" 2>/dev/null | grep -c "pid $responder " || true
}

echo "== tcp: garbage"
exec 3<>"/dev/tcp/$ip/$port"
head -c 200 /dev/urandom >&3
reply=$(timeout 10 od -An -tx1 -N 60 <&3 | tr -d ' \n')
exec 3<&-
# An accept message: magic "RTPA", version 1, status 4 (bad hello).
[[ "$reply" == 5254504101040* ]] || fail "garbage did not get a bad-hello refusal: '$reply'"

echo "== tcp: truncated hello"
exec 3<>"/dev/tcp/$ip/$port"
printf 'RTPH\001\002' >&3
# The responder closes after its 2 s handshake timeout: read returns EOF, not the timeout's 124.
rc=0
timeout 20 cat <&3 >/dev/null || rc=$?
exec 3<&-
((rc == 0)) || fail "truncated hello was not closed by the responder (rc $rc)"
# (Its log line is suppressed: one line per peer and reason per 10 s, and the garbage above
# already logged "bad hello" for this peer.)

echo "== tcp: 12 silent connections against a per-address share of 3"
for fd in {10..21}; do
  eval "exec $fd<>/dev/tcp/$ip/$port"
done
wait_log "per-address connection cap 3 reached"
for fd in {10..21}; do
  eval "exec $fd<&-"
done

echo "== rdma_cm: rping and ucmatose with foreign private data"
timeout 30 rping -c -a "$ip" -p "$port" -C 1 >rping.log 2>&1 || true
timeout 30 ucmatose -s "$ip" -p "$port" -c 4 >ucmatose.log 2>&1 || true
wait_log "refused rdma peer $ip: bad hello"

echo "== rdma_cm: a fourth prober beyond the per-address share of 3"
for i in 1 2 3 4; do
  "$rdmatop" probe "$ip" --transport rc_send --duration 30 --rate 2 >"holder$i.log" 2>&1 &
  holders+=($!)
done
wait_log "refused rdma peer $ip: responder busy .*(per-address connection cap 3 reached)"
# One prober vanishes without a goodbye (SIGKILL), the others stop normally.
kill -KILL "${holders[0]}" 2>/dev/null || true
kill -TERM "${holders[@]:1}" 2>/dev/null || true
wait "${holders[@]}" 2>/dev/null || true
holders=()

echo "== nothing left behind"
deadline=$((SECONDS + 60))
until [[ $(held qp) == 0 && $(held mr) == 0 ]]; do
  ((SECONDS < deadline)) || { rdma resource show qp >&2; fail "responder still holds QPs/MRs"; }
  sleep 0.5
done

echo "== a good prober is still served"
for t in rc_send rc_write tcp; do
  out=$("$rdmatop" probe "$ip" --transport "$t" --sizes 64,4096 --count 10 --rate 100 \
    --timeout 5000 --json) || { echo "$out" >&2; cat responder.log >&2; fail "$t probe failed"; }
  jq -e '.probes[0].answered == 10 and .probes[0].timed_out == 0' <<<"$out" >/dev/null ||
    fail "$t: not every probe answered: $out"
  echo "$t: 10/10 answered, p50 $(jq -r '.probes[0].window.p50' <<<"$out") s"
done

kill -TERM "$responder"
rc=0
wait "$responder" || rc=$?
trap - EXIT
((rc == 0)) || { cat responder.log >&2; fail "responder exited $rc after SIGTERM"; }
grep -q "stopped rdma: accepted" responder.log || fail "no rdma stop line"
cat responder.log
echo "PASS: responder refused hostile peers with reasons, leaked nothing and kept serving"
