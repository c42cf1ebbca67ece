#!/bin/bash
# One VM: per-QP retransmit attribution on real rxe (docs/probes.md, "Retransmit attribution").
# rdmatop binds every probe QP to a counter of its own, the request `rdma statistic qp bind`
# sends (RDMA_NLDEV_CMD_STAT_SET). rxe has no per-QP counters, so the kernel refuses and the
# stream must stay at scope "port" WITH the kernel's reason:
#   1. as root: a one-shot probe; then, on a live probe QP, the same bind by hand with iproute2
#      must be refused with the same errno (both printed);
#   2. without CAP_NET_ADMIN (setpriv): refused as not permitted; the pings are unaffected;
#   3. with the port in auto mode (`rdma statistic qp set ... auto type on`): said as auto mode;
#   4. --no-qp-counter: no bind at all, said so.
set -euo pipefail
# shellcheck source=tests/vm/cases/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

rdmatop="$1"
ip="$RXE_VM_IP"
cd "$RXE_VM_DIR"

live=
trap 'kill "$live" 2>/dev/null || true; stop_probe_responder
      rdma statistic qp set link rxe0/1 auto off 2>/dev/null || true' EXIT
start_probe_responder "$rdmatop" "$ip"

# One-shot probe, JSON; prints the stream's "scope|note" after checking it was answered.
probe_note() { # label, command prefix (may be empty), extra probe options...
  local label="$1" prefix="$2"
  shift 2
  local rc=0
  # shellcheck disable=SC2086 # the prefix is words on purpose
  $prefix "$rdmatop" probe "$ip" --transport rc_send --count 5 --rate 20 --sizes 64 --event \
    --json "$@" >"$label.json" 2>"$label.err" || rc=$?
  ((rc <= 1)) || { cat "$label.err" >&2; fail "$label: rdmatop probe exited $rc"; }
  jq -e '.probes[0].answered > 0' "$label.json" >/dev/null ||
    fail "$label: no answers: $(jq -c '.probes[0]' "$label.json")"
  jq -r '.probes[0] | "\(.retransmit_scope)|\(.retransmit_note // "")"' "$label.json"
}
expect() { # label, got, want
  echo "$1: rdmatop: $2"
  [[ "$2" == "$3" ]] || fail "$1: want \"$3\", got \"$2\""
}

# 1. root, port in mode none.
root=$(probe_note root "")
errno_name=$(sed -n 's/.*(\([A-Z]*\))$/\1/p' <<<"${root#*|}")
[[ "${root%%|*}" == port && -n "$errno_name" ]] ||
  fail "root: want scope port with the kernel's errno, got \"$root\""
echo "root: rdmatop: $root"

# The same bind by hand on a live probe QP (a continuous prober holds its QP between lines).
"$rdmatop" probe "$ip" --transport rc_send --interval 1 --rate 5 --sizes 64 --event --json \
  >live.json 2>live.err &
live=$!
lqpn=
for _ in $(seq 1 120); do
  if [[ -s live.json ]] && tail -n 1 live.json | jq -e '.probes[0].connected' >/dev/null 2>&1; then
    # The kernel names a QP's owner by the thread that created it (task_pid_vnr of the
    # restrack task): here a probe worker, so match any thread of the prober.
    tids=$(printf '%s\n' /proc/"$live"/task/* | sed 's|.*/||' | jq -s -c .)
    lqpn=$(rdma -j resource show qp link rxe0/1 |
      jq -r --argjson tids "$tids" '[.[] | select(.pid as $p | $tids | index($p))][0].lqpn // empty')
    [[ -n "$lqpn" ]] && break
  fi
  sleep 0.5
done
[[ -n "$lqpn" ]] || {
  tail -n 1 live.json >&2 || true
  cat live.err >&2
  rdma resource show qp >&2
  fail "the live prober's QP never showed up"
}
hand_rc=0
rdma statistic qp bind link rxe0/1 lqpn "$lqpn" >hand.out 2>&1 || hand_rc=$?
hand=$(tr '\n' ' ' <hand.out)
echo "by hand: rdma statistic qp bind link rxe0/1 lqpn $lqpn: rc=$hand_rc: $hand"
want_text=$(python3 -c 'import errno, os, sys; print(os.strerror(getattr(errno, sys.argv[1])))' \
  "$errno_name")
((hand_rc != 0)) || fail "iproute2 bound QP $lqpn, but rdmatop was refused ($errno_name)"
grep -qF "$want_text" hand.out ||
  fail "iproute2's refusal \"$hand\" is not rdmatop's $errno_name ($want_text)"
echo "same refusal: rdmatop $errno_name = iproute2 \"$want_text\""
tail -n 1 live.json | jq -r '.probes[0] | "live prober: \(.retransmit_scope): \(.retransmit_note)"'
echo "rdma statistic qp show link rxe0/1: $(rdma -j statistic qp show link rxe0/1 | tr -d '\n')"
kill "$live"
wait "$live" 2>/dev/null || true
live=

# 2. Without CAP_NET_ADMIN the kernel refuses before looking at the QP (netlink.c
#    rdma_nl_rcv_msg: STAT_SET is RDMA_NL_ADMIN_PERM).
got=$(probe_note no_net_admin "setpriv --bounding-set -net_admin --inh-caps -net_admin")
expect "without CAP_NET_ADMIN" "$got" \
  "port|rxe0/1: binding QP counters not permitted (needs CAP_NET_ADMIN)"

# 3. Auto mode: rxe accepts it (it has hw stats) and then refuses a manual bind with EINVAL.
if rdma statistic qp set link rxe0/1 auto type on 2>auto.err; then
  echo "rdma statistic qp mode link rxe0/1: $(rdma statistic qp mode link rxe0/1 | tr -s ' ')"
  got=$(probe_note auto "")
  expect "auto mode" "$got" "port|rxe0/1: port in auto mode, the kernel binds QPs itself (EINVAL)"
  rdma statistic qp set link rxe0/1 auto off
else
  echo "auto mode refused by the kernel ($(cat auto.err)): case 3 not run"
fi

# 4. Binding off.
got=$(probe_note off "" --no-qp-counter)
expect "--no-qp-counter" "$got" "port|QP counter binding off"
echo "PASS: rdmatop reports port scope with the kernel's refusal ($errno_name), as iproute2 sees it"
