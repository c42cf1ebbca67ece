#!/bin/bash
# Inside the rxe VM: on the live host the exporter keeps a RoCE port's GID table for 10 min and
# reads it again when rtnetlink announces an address or link change
# (collector/source/route_change_feed.h), so an address added to rxe0's netdev, then removed,
# shows in rdma_port_roce_v2_gids within a few ticks, not at the 60 s refresh of what nothing
# announces (which is what this waited for before the feed: the bound below is a quarter of it).
# Usage: gid-announced.sh RDMATOP_BINARY
set -euo pipefail
# shellcheck source=tests/vm/cases/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

rdmatop="${1:?usage: gid-announced.sh RDMATOP_BINARY}"
[[ -x "$rdmatop" ]] || fail "not executable: $rdmatop"
netdev=$(<"/sys/class/infiniband/rxe0/ports/1/gid_attrs/ndevs/0") || fail "rxe0 has no netdev"
tmp=$(mktemp -d)
port=19777
"$rdmatop" exporter --interval 1 --listen "127.0.0.1:$port" >"$tmp/exporter.log" 2>&1 &
exporter=$!
trap 'kill "$exporter" 2>/dev/null || true' EXIT

# rxe0's routable RoCE v2 GIDs as the exporter serves them; empty until it does.
gids() {
  curl -sf "http://127.0.0.1:$port/metrics" 2>/dev/null |
    awk '/^rdma_port_roce_v2_gids\{/ && /device="rxe0"/ { print $2 }' || true
}
# wait_for_gids N SECONDS: until the exporter serves N, at most SECONDS; prints how long it took.
wait_for_gids() {
  local want=$1 limit=$2 start=$SECONDS have
  while :; do
    have=$(gids)
    [[ "$have" == "$want" ]] && { echo $((SECONDS - start)); return 0; }
    ((SECONDS - start < limit)) || fail "rdma_port_roce_v2_gids of rxe0 is '$have' after ${limit} s, want $want (exporter log: $(cat "$tmp/exporter.log"))"
    sleep 0.5
  done
}

for ((i = 0; i < 120; i++)); do
  before=$(gids)
  [[ -n "$before" ]] && break
  sleep 0.5
done
[[ -n "$before" ]] || fail "the exporter served no rdma_port_roce_v2_gids for rxe0 in 60 s"
sleep 3  # a few ticks past the exporter's first reads of the table (and past their settling)

ip addr add 10.11.12.77/24 dev "$netdev"
added=$(wait_for_gids $((before + 1)) 15)
ip addr del 10.11.12.77/24 dev "$netdev"
removed=$(wait_for_gids "$before" 15)
echo "gid-announced: $before routable RoCE v2 GIDs on rxe0 ($netdev); an address added showed after ${added} s, removed after ${removed} s"
