#!/bin/bash
# One VM: a continuous `rdmatop probe --interval 1` (rc_send and tcp) while the responder is
# killed (SIGKILL, no goodbye) and started again:
#   - while it is gone the streams report failures (QP/connect errors or timeouts) with a cause
#     in last_error;
#   - after it returns both streams reconnect by themselves and are answered again, and the
#     prober exits cleanly on SIGTERM.
set -euo pipefail
# shellcheck source=tests/vm/cases/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

rdmatop="$1"
ip="$RXE_VM_IP"
cd "$RXE_VM_DIR"

start_responder() { "$rdmatop" responder --listen "$ip" >>responder.log 2>&1 & echo $!; }
responder=$(start_responder)
prober=
trap 'kill -KILL $responder $prober 2>/dev/null || true' EXIT

"$rdmatop" probe "$ip" --transport rc_send,tcp --interval 1 --rate 10 --sizes 64 --timeout 500 \
  --json >lines.json 2>prober.err &
prober=$!

# Waits (bounded) until the newest line satisfies a jq condition on every stream.
wait_for() { # description, jq condition on one probe entry
  local deadline=$((SECONDS + 60))
  while ((SECONDS < deadline)); do
    if [[ -s lines.json ]] &&
      tail -n 1 lines.json | jq -e "[.probes[] | $2] | length == 2 and all" >/dev/null 2>&1; then
      return
    fi
    sleep 0.5
  done
  tail -n 3 lines.json >&2 || true
  cat prober.err responder.log >&2
  fail "timed out waiting for: $1"
}
# Counters are cumulative; errors = everything that is not an answer.
errors='(.timed_out + .qp_errors + .connect_failures)'

wait_for "both streams answered" '.answered > 0 and .connected'
answered_before=$(tail -n 1 lines.json | jq '[.probes[].answered] | add')
errors_before=$(tail -n 1 lines.json | jq "[.probes[] | $errors] | add")
kill -KILL "$responder"
wait "$responder" 2>/dev/null || true
wait_for "errors on both streams after the kill" "$errors > $errors_before and .last_error != \"\""
tail -n 1 lines.json | jq -r '.probes[] | "while down: \(.transport): \(.last_error)"'

responder=$(start_responder)
answered_mark=$(tail -n 1 lines.json | jq -c '[.probes[] | {(.transport): .answered}] | add')
wait_for "answers again after the restart" \
  ".connected and .answered > (${answered_mark}[.transport])"
kill -TERM "$prober"
rc=0
wait "$prober" || rc=$?
prober=
((rc <= 2)) || fail "rdmatop probe exited $rc on SIGTERM"
tail -n 1 lines.json | jq -r '.probes[] | "\(.transport): sent \(.sent) answered \(.answered)" +
  " timed_out \(.timed_out) qp_errors \(.qp_errors) connect_failures \(.connect_failures)" +
  " wc_errors \(.wc_errors)"'
echo "answered before the kill: $answered_before; errors before: $errors_before"
echo "PASS: errors while the responder was gone, clean reconnect when it returned"
