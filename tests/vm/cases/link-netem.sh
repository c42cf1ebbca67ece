#!/bin/bash
# Both VMs of `rxe-run --topology two` run this script: VM "b" as the peer command (ping-pong
# servers), VM "a" as the command (clients + assertions). RC traffic crosses the virtual link
# (virtio NIC eth0 <-> qemu socket netdev <-> eth0), and `tc netem` on a's eth0 injects faults:
#   1. baseline: ibv_rc_pingpong a -> b; the rxe packets really left through eth0 (its
#      tx_packets grew by at least rxe's sent_pkts);
#   2. netem delay D on a's egress: usec/iter rises by at least D/2 over the baseline (every
#      round trip passes a's egress once, so netem adds >= D to each; only the rise is asserted);
#   3. netem loss on a's egress: RC recovers (the exchange completes), netem really dropped
#      packets, and a received more sequence-error NAKs (rcvd_seq_err) than in the baseline:
#      messages are 4 packets (4096 B at MTU 1024), so a lost packet that is not the last of
#      its message leaves a gap that b NAKs.
# Not asserted on: completer_retry_err/duplicate_request. rxe arms its retransmit timer once
# and does not push it back per packet, so under continuous traffic it also fires while a
# packet is merely in flight: at emulation RTTs (ms) there are several such retries per second
# without any loss. A retry resends from the oldest unacked PSN, which b sees as duplicates,
# never as a gap, so rcvd_seq_err stays a clean loss signal.
# No absolute latency is asserted, and error counters are compared as deltas (pitfalls 10/11).
set -euo pipefail
# shellcheck source=tests/vm/cases/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

delay_ms=20
loss_pct=20
# Phase: port and iterations; both sides must agree.
base_port=18515 base_n=100
delay_port=18516 delay_n=20
loss_port=18517 loss_n=50
# -e: wait for completions on events instead of polling. Two polling VMs on two host cores
# starve each other's vCPUs (baseline ~18 ms/iter instead of ~3-5 ms).
pp=(-d rxe0 -g "$RXE_VM_GID_INDEX" -s 4096 -e)

if [[ "$RXE_VM_NAME" == b ]]; then
  ibv_rc_pingpong "${pp[@]}" -n "$base_n" -p "$base_port"
  ibv_rc_pingpong "${pp[@]}" -n "$delay_n" -p "$delay_port"
  ibv_rc_pingpong "${pp[@]}" -n "$loss_n" -p "$loss_port"
  exit 0
fi

[[ "$RXE_VM_NAME" == a && -n "$RXE_VM_PEER_IP" ]] || fail "run with rxe-run --topology two"
read -r eth_tx0 </sys/class/net/eth0/statistics/tx_packets
sent0=$(hw_counter rxe0 1 sent_pkts)
seq0=$(hw_counter rxe0 1 rcvd_seq_err)

out=$(rc_pingpong_client "$RXE_VM_PEER_IP" "${pp[@]}" -n "$base_n" -p "$base_port")
base_us=$(usec_per_iter "$out")
read -r eth_tx1 </sys/class/net/eth0/statistics/tx_packets
sent1=$(hw_counter rxe0 1 sent_pkts)
seq1=$(hw_counter rxe0 1 rcvd_seq_err)
echo "baseline: $base_us usec/iter; rxe sent_pkts +$((sent1 - sent0)), eth0 tx_packets" \
  "+$((eth_tx1 - eth_tx0)), rcvd_seq_err +$((seq1 - seq0))"
((sent1 - sent0 >= base_n)) || fail "rxe sent only $((sent1 - sent0)) packets for $base_n exchanges"
((eth_tx1 - eth_tx0 >= sent1 - sent0)) || fail "the rxe packets did not go out through eth0"

tc qdisc add dev eth0 root netem delay "${delay_ms}ms"
out=$(rc_pingpong_client "$RXE_VM_PEER_IP" "${pp[@]}" -n "$delay_n" -p "$delay_port")
delay_us=$(usec_per_iter "$out")
echo "netem delay ${delay_ms}ms: $delay_us usec/iter"
awk -v b="$base_us" -v d="$delay_us" -v ms="$delay_ms" 'BEGIN { exit !(d - b >= ms * 1000 / 2) }' ||
  fail "RTT rose by $(awk -v b="$base_us" -v d="$delay_us" 'BEGIN { print d - b }') us only," \
    "expected >= $((delay_ms * 1000 / 2)) us with netem delay ${delay_ms}ms"

tc qdisc change dev eth0 root netem loss "${loss_pct}%"
seq2=$(hw_counter rxe0 1 rcvd_seq_err)
out=$(rc_pingpong_client "$RXE_VM_PEER_IP" "${pp[@]}" -n "$loss_n" -p "$loss_port")
seq3=$(hw_counter rxe0 1 rcvd_seq_err)
dropped=$(tc -s qdisc show dev eth0 | awk '/dropped/ { sub(",", "", $7); print $7; exit }')
tc qdisc del dev eth0 root
echo "netem loss ${loss_pct}%: $(usec_per_iter "$out") usec/iter; netem dropped ${dropped:-?}," \
  "rcvd_seq_err +$((seq3 - seq2)) (baseline +$((seq1 - seq0)))"
((${dropped:-0} > 0)) || fail "netem dropped nothing"
((seq3 - seq2 > seq1 - seq0)) ||
  fail "no more sequence-error NAKs with ${loss_pct}% loss than without"
echo "PASS: traffic crossed the link; delay raised the RTT by" \
  "$(awk -v b="$base_us" -v d="$delay_us" 'BEGIN { print d - b }') us;" \
  "RC recovered from $dropped drops"
