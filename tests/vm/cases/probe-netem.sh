#!/bin/bash
# Two VMs (`rxe-run --topology two`): VM "b" runs `rdmatop responder`, VM "a" probes it over the
# virtual link with RC and the TCP baseline, and `tc netem` on a's eth0 injects faults:
#   1. baseline: every rc_send and tcp probe is answered;
#   2. netem delay D: the rc_send and tcp p50 each rise by at least D/2 over the baseline (every
#      round trip crosses a's egress once, so netem adds >= D; the rise is printed next to D);
#   3. netem loss (multi-packet probes: 4096 B at MTU 1024): netem really dropped packets, every
#      probe is accounted for (sent = answered + timed_out + qp errors), and there is loss
#      evidence: rdmatop's port-level retransmits grew more than in the baseline, or probes timed
#      out; rxe's rcvd_seq_err (sequence NAKs from b, the clean loss signal) grew too.
# Probes use --event: two busy-polling VMs on two host cores starve each other (docs/vm.md,
# pitfall 4). No absolute latency is asserted.
set -euo pipefail
# shellcheck source=tests/vm/cases/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

rdmatop="$1"
delay_ms=20
loss_pct=20

if [[ "$RXE_VM_NAME" == b ]]; then
  exec "$rdmatop" responder --listen "$RXE_VM_IP"
fi
[[ "$RXE_VM_NAME" == a && -n "$RXE_VM_PEER_IP" ]] || fail "run with rxe-run --topology two"
cd "$RXE_VM_DIR"
peer="$RXE_VM_PEER_IP"

probe() { # label, then extra rdmatop probe flags; prints the JSON
  local label="$1" out rc=0
  shift
  out=$("$rdmatop" probe "$peer" --event --timeout 3000 --json "$@" 2>"probe-$label.err") || rc=$?
  ((rc <= 1)) || {
    echo "$out" >&2
    cat "probe-$label.err" >&2
    fail "$label: rdmatop probe exited $rc"
  }
  echo "$out"
}

# b's responder starts in parallel with this VM.
wait_for_responder "$rdmatop" "$peer" rc_send,tcp
field() { jq -r "[.probes[] | select(.transport == \"$2\")][0] | $3" <<<"$1"; }

base=$(probe baseline --transport rc_send,tcp --sizes 64 --count 20 --rate 20)
for t in rc_send tcp; do
  [[ $(field "$base" $t '.answered') == 20 ]] || fail "baseline $t: $(field "$base" $t '.')"
done
base_rc=$(field "$base" rc_send '.window.p50 * 1e6')
base_tcp=$(field "$base" tcp '.window.p50 * 1e6')
echo "baseline p50: rc_send $base_rc us, tcp $base_tcp us"

tc qdisc add dev eth0 root netem delay "${delay_ms}ms"
delayed=$(probe delay --transport rc_send,tcp --sizes 64 --count 10 --rate 10)
for t in rc_send tcp; do
  before=$([[ $t == tcp ]] && echo "$base_tcp" || echo "$base_rc")
  after=$(field "$delayed" $t '.window.p50 * 1e6')
  rise=$(awk -v a="$after" -v b="$before" 'BEGIN { printf "%.0f", a - b }')
  echo "netem delay ${delay_ms}ms: $t p50 $after us (+$rise us)"
  ((rise >= delay_ms * 1000 / 2)) || fail "$t p50 rose by $rise us only with netem delay ${delay_ms}ms"
done

tc qdisc change dev eth0 root netem loss "${loss_pct}%"
seq0=$(hw_counter rxe0 1 rcvd_seq_err)
lossy=$(probe loss --transport rc_send --sizes 4096 --count 30 --rate 10)
seq1=$(hw_counter rxe0 1 rcvd_seq_err)
dropped=$(tc -s qdisc show dev eth0 | awk '/dropped/ { sub(",", "", $7); print $7; exit }')
tc qdisc del dev eth0 root
read -r sent answered timed_out qp_errors retrans scope < <(jq -r '.probes[0] |
  [.sent, .answered, .timed_out, .qp_errors, (.retransmits // -1), .retransmit_scope] | @tsv' \
  <<<"$lossy")
base_retrans=$(field "$base" rc_send '.retransmits // -1')
echo "netem loss ${loss_pct}%: netem dropped ${dropped:-?}; rdmatop sent $sent answered $answered" \
  "timed_out $timed_out qp_errors $qp_errors retransmits $retrans ($scope; baseline" \
  "$base_retrans); rxe rcvd_seq_err +$((seq1 - seq0))"
((${dropped:-0} > 0)) || fail "netem dropped nothing"
((sent == answered + timed_out + qp_errors)) || fail "probes unaccounted for"
[[ "$scope" == port ]] || fail "no port-level retransmit attribution (scope '$scope')"
((retrans > base_retrans || timed_out > 0)) || fail "no retransmit or timeout evidence under loss"
((seq1 > seq0)) || fail "rxe saw no sequence-error NAKs under loss"
echo "PASS: delay raised rc_send and tcp p50; loss showed as retransmits/timeouts"
