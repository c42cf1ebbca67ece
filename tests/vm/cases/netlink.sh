#!/bin/bash
# Inside the rxe VM (rxe-run --devices 2): rdmatop's RDMA netlink counter source against the
# real kernel. `rdmatop report --json --interval 0 --counters netlink` must agree with
# iproute2's view taken in the same run and with rdmatop's own sysfs reading:
#   * devices (name, node GUID, system image GUID, node type) equal `rdma -j dev`;
#   * ports (state, netdev) equal `rdma -j link`;
#   * every port's hw counters equal `rdma -j statistic show` and `--counters sysfs`;
#   * every port says counter_source "netlink" (and "sysfs" in the sysfs run), and the
#     resource summary is there.
# RC traffic runs first (different amounts per device) so counters are non-zero and distinct;
# nothing runs between the reads, so the counters hold still.
# Usage: netlink.sh RDMATOP_BINARY
set -euo pipefail
# shellcheck source=tests/vm/cases/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

rdmatop="${1:?usage: netlink.sh RDMATOP_BINARY}"
[[ -x "$rdmatop" ]] || fail "not executable: $rdmatop"
[[ "${RXE_VM_DEVICES:-}" == "rxe0 rxe1" ]] ||
  fail "run with rxe-run --devices 2 (have: ${RXE_VM_DEVICES:-none})"
tmp=$(mktemp -d)
read -r gid0 gid1 <<<"$RXE_VM_GID_INDEXES"

ibv_rc_pingpong -d rxe0 -g "$gid0" -s 64 -n 15 -p 18515 >"$tmp/s0" 2>&1 &
srv0=$!
ibv_rc_pingpong -d rxe1 -g "$gid1" -s 64 -n 30 -p 18516 >"$tmp/s1" 2>&1 &
srv1=$!
rc_pingpong_client 10.11.12.1 -d rxe0 -g "$gid0" -s 64 -n 15 -p 18515 >/dev/null
rc_pingpong_client 10.11.13.1 -d rxe1 -g "$gid1" -s 64 -n 30 -p 18516 >/dev/null
wait "$srv0" || { cat "$tmp/s0"; fail "rxe0 server failed"; }
wait "$srv1" || { cat "$tmp/s1"; fail "rxe1 server failed"; }

"$rdmatop" report --json --interval 0 --counters netlink >"$tmp/netlink.json" ||
  fail "rdmatop report --counters netlink exited $?"
rdma -j dev >"$tmp/dev.json" || fail "rdma dev failed"
rdma -j link >"$tmp/link.json" || fail "rdma link failed"
rdma -j statistic show >"$tmp/stat.json" || fail "rdma statistic failed"
"$rdmatop" report --json --interval 0 --counters sysfs >"$tmp/sysfs.json" ||
  fail "rdmatop report --counters sysfs exited $?"

compare() { # what expected actual
  if ! diff -u "$2" "$3" >"$tmp/diff"; then
    cat "$tmp/diff"
    fail "$1 differs (- expected, + rdmatop)"
  fi
}

# Devices. rdma prints node_type "ca"; rdmatop keeps the sysfs spelling ("CA").
jq -r '.[] | "\(.ifname) \(.node_guid) \(.sys_image_guid) \(.node_type)"' "$tmp/dev.json" |
  LC_ALL=C sort >"$tmp/dev.expected"
jq -r '.devices[] | "\(.name) \(.node_guid) \(.sys_image_guid) \(.node_type | ascii_downcase)"' \
  "$tmp/netlink.json" | LC_ALL=C sort >"$tmp/dev.actual"
compare "rdma dev vs report devices" "$tmp/dev.expected" "$tmp/dev.actual"

# Ports: state and netdev.
jq -r '.[] | "\(.ifname) \(.port) \(.state) \(.netdev)"' "$tmp/link.json" |
  LC_ALL=C sort >"$tmp/link.expected"
jq -r '.devices[] as $d | $d.ports[] | "\($d.name) \(.port) \(.state) \(.netdev)"' \
  "$tmp/netlink.json" | LC_ALL=C sort >"$tmp/link.actual"
compare "rdma link vs report ports" "$tmp/link.expected" "$tmp/link.actual"

# Counters: rdma statistic, the netlink report and the sysfs report.
jq -r '.[] | . as $s | to_entries[]
  | select(.key != "ifname" and .key != "ifindex" and .key != "port")
  | "\($s.ifname) \($s.port) \(.key) \(.value)"' "$tmp/stat.json" |
  LC_ALL=C sort >"$tmp/stat.expected"
counters() { # report.json
  jq -r '.devices[] as $d | $d.ports[] as $p | $p.hw_counters | to_entries[]
    | "\($d.name) \($p.port) \(.key) \(.value)"' "$1" | LC_ALL=C sort
}
counters "$tmp/netlink.json" >"$tmp/netlink.counters"
counters "$tmp/sysfs.json" >"$tmp/sysfs.counters"
compare "rdma statistic vs --counters netlink" "$tmp/stat.expected" "$tmp/netlink.counters"
compare "--counters sysfs vs --counters netlink" "$tmp/sysfs.counters" "$tmp/netlink.counters"

# Which source served: netlink everywhere in the first run, sysfs in the second.
jq -e '[.devices[].ports[].counter_source] | length == 2 and all(. == "netlink")' \
  "$tmp/netlink.json" >/dev/null ||
  fail "counter_source (netlink run): $(jq -c '[.devices[].ports[].counter_source]' "$tmp/netlink.json")"
jq -e '[.devices[].ports[].counter_source] | all(. == "sysfs")' "$tmp/sysfs.json" >/dev/null ||
  fail "counter_source (sysfs run): $(jq -c '[.devices[].ports[].counter_source]' "$tmp/sysfs.json")"
# The resource summary: every rxe device has at least its protection domains counted.
jq -e 'all(.devices[]; .resources | has("pd") and has("qp"))' "$tmp/netlink.json" >/dev/null ||
  fail "resources: $(jq -c '[.devices[].resources]' "$tmp/netlink.json")"

# Not vacuous: both devices, traffic on both, more on rxe1.
s0=$(awk '$1 == "rxe0" && $3 == "sent_pkts" { print $4 }' "$tmp/netlink.counters")
s1=$(awk '$1 == "rxe1" && $3 == "sent_pkts" { print $4 }' "$tmp/netlink.counters")
((${s0:-0} > 0 && ${s1:-0} > s0)) || fail "expected traffic on both devices: sent_pkts ${s0:-?} / ${s1:-?}"
echo "PASS: $(wc -l <"$tmp/netlink.counters") counters by netlink equal rdma statistic and sysfs;" \
  "devices and ports equal rdma dev/link (sent_pkts rxe0 $s0, rxe1 $s1)"
