#!/bin/bash
# Inside the rxe VM (rxe-run --devices 2): rdmatop's sysfs collector against the real rdma_rxe
# driver. `rdmatop report --json --interval 0` must agree with the kernel's own files:
#   * every hw_counters file equals the report's value (and the report has no extra counter),
#     and the RDMA netlink view (`rdma statistic`) agrees too;
#   * the GID table equals a show_gids-style listing (index, gid, type and netdev from
#     gid_attrs) of the populated entries;
#   * state/phys_state/rate/link_layer are parsed (id and name, Gb/s), netdev from gid_attrs.
# Traffic runs first, different amounts per device, so counters are non-zero and distinct, and
# extra addresses make the GID table longer than the default two entries.
# Usage: sysfs-collector.sh RDMATOP_BINARY
set -euo pipefail
# shellcheck source=tests/vm/cases/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

rdmatop="${1:?usage: sysfs-collector.sh RDMATOP_BINARY}"
[[ -x "$rdmatop" ]] || fail "not executable: $rdmatop"
[[ "${RXE_VM_DEVICES:-}" == "rxe0 rxe1" ]] ||
  fail "run with rxe-run --devices 2 (have: ${RXE_VM_DEVICES:-none})"
tmp=$(mktemp -d)
read -r gid0 gid1 <<<"$RXE_VM_GID_INDEXES"

# More GID entries on rxe0: a second IPv4 and a global IPv6 address (no DAD in the VM).
ip -batch - <<'EOF'
addr replace 10.11.12.9/24 dev dummy0
addr replace fd00:11:12::1/64 dev dummy0 nodad
EOF

# RC traffic on both devices at once: 20 exchanges on rxe0, 35 on rxe1.
ibv_rc_pingpong -d rxe0 -g "$gid0" -s 64 -n 20 -p 18515 >"$tmp/s0" 2>&1 &
srv0=$!
ibv_rc_pingpong -d rxe1 -g "$gid1" -s 64 -n 35 -p 18516 >"$tmp/s1" 2>&1 &
srv1=$!
rc_pingpong_client 10.11.12.1 -d rxe0 -g "$gid0" -s 64 -n 20 -p 18515 >/dev/null
rc_pingpong_client 10.11.13.1 -d rxe1 -g "$gid1" -s 64 -n 35 -p 18516 >/dev/null
wait "$srv0" || { cat "$tmp/s0"; fail "rxe0 server failed"; }
wait "$srv1" || { cat "$tmp/s1"; fail "rxe1 server failed"; }

# The new addresses' GIDs appear asynchronously: wait for them (one awk per poll, over the
# first entries only: the table fills from index 0 up, and 1024 sysfs reads are slow).
for ((i = 0; ; i++)); do
  n=$(awk '$0 == "0000:0000:0000:0000:0000:ffff:0a0b:0c09" { n++ }
    $0 == "fd00:0011:0012:0000:0000:0000:0000:0001" { n++ }
    END { print n + 0 }' /sys/class/infiniband/rxe0/ports/1/gids/{0..15})
  ((n == 2)) && break
  ((i < 200)) || fail "the GIDs of the added addresses did not appear"
  sleep 0.05
done

"$rdmatop" report --json --interval 0 >"$tmp/report.json" || fail "rdmatop report exited $?"
rdma -j statistic show link >"$tmp/netlink.json" || fail "rdma statistic failed"

# Expected, from the files: one grep over every relevant file (unpopulated GID attributes fail
# with EINVAL by design: grep's complaints and exit status 2 are expected).
ib=/sys/class/infiniband
grep -H '' $ib/*/fw_ver $ib/*/ports/*/{state,phys_state,rate,link_layer} \
  $ib/*/ports/*/hw_counters/* $ib/*/ports/*/gids/* $ib/*/ports/*/gid_attrs/{types,ndevs}/* \
  >"$tmp/files" 2>/dev/null || true
# Any counters/ (IB PMA) files too; rxe has none, so this usually matches nothing.
compgen -G "$ib/*/ports/*/counters/*" >/dev/null &&
  { grep -H '' $ib/*/ports/*/counters/* >>"$tmp/files" 2>/dev/null || true; }

awk '
  { sep = index($0, ":"); path = substr($0, 1, sep - 1); val = substr($0, sep + 1)
    n = split(path, p, "/"); dev = p[5] }
  p[6] == "fw_ver" { print dev, "device", "fw_ver", val; next }
  p[8] == "state" || p[8] == "phys_state" {
    split(val, sv, ": "); print dev, p[7], p[8] "_id", sv[1] + 0; print dev, p[7], p[8], substr(val, length(sv[1]) + 3); next }
  p[8] == "rate" { print dev, p[7], "rate", val; split(val, rv, " "); print dev, p[7], "rate_gbps", rv[1] + 0; next }
  p[8] == "link_layer" { print dev, p[7], "link_layer", val; next }
  p[8] == "hw_counters" { print dev, p[7], "hw_counters." p[9], val; next }
  p[8] == "counters" { print dev, p[7], "counters." p[9], val; next }
  p[8] == "gids" && val != "0000:0000:0000:0000:0000:0000:0000:0000" { gid[dev " " p[7] " " p[9]] = val; next }
  p[8] == "gid_attrs" { attr[p[9], dev " " p[7] " " p[10]] = val
    if (p[9] == "ndevs" && p[10] == "0") print dev, p[7], "netdev", val; next }
  END { for (k in gid) { split(k, kk, " ")
          print kk[1], kk[2], "gid", kk[3], gid[k], attr["types", k], attr["ndevs", k] } }
' "$tmp/files" | LC_ALL=C sort >"$tmp/expected"

# Actual, from the report, in the same line format.
jq -r '.devices[] as $d
  | ("\($d.name) device fw_ver \($d.fw_ver)"),
    ($d.ports[] as $p
     | "\($d.name) \($p.port) state_id \($p.state_id)", "\($d.name) \($p.port) state \($p.state)",
       "\($d.name) \($p.port) phys_state_id \($p.phys_state_id)",
       "\($d.name) \($p.port) phys_state \($p.phys_state)",
       "\($d.name) \($p.port) rate \($p.rate)", "\($d.name) \($p.port) rate_gbps \($p.rate_gbps)",
       "\($d.name) \($p.port) link_layer \($p.link_layer)", "\($d.name) \($p.port) netdev \($p.netdev)",
       "\($d.name) \($p.port) hw_counters.lifespan \($p.hw_counters_lifespan_ms)",
       ($p.hw_counters | to_entries[] | "\($d.name) \($p.port) hw_counters.\(.key) \(.value)"),
       ($p.counters // {} | to_entries[] | "\($d.name) \($p.port) counters.\(.key) \(.value)"),
       ($p.gids[] | "\($d.name) \($p.port) gid \(.index) \(.gid) \(.type) \(.netdev)"))' \
  "$tmp/report.json" | LC_ALL=C sort >"$tmp/actual" || fail "report.json is not the expected JSON"

if ! diff -u "$tmp/expected" "$tmp/actual" >"$tmp/diff"; then
  cat "$tmp/diff"
  fail "rdmatop report differs from sysfs (- sysfs, + report)"
fi

# The netlink view of the same counters must agree with the report as well.
jq -r '.[] | . as $s | to_entries[] | select(.key != "ifname" and .key != "ifindex" and .key != "port")
  | "\($s.ifname) \($s.port) hw_counters.\(.key) \(.value)"' "$tmp/netlink.json" |
  LC_ALL=C sort >"$tmp/netlink"
grep ' hw_counters\.' "$tmp/actual" | grep -v ' hw_counters\.lifespan ' >"$tmp/actual_hw"
diff -u "$tmp/netlink" "$tmp/actual_hw" || fail "rdmatop report differs from rdma statistic (- netlink, + report)"

# The comparison must not be vacuous: both devices, real traffic, the longer GID table, and
# the driver the test created.
jq -e '[.devices[].name] == ["rxe0", "rxe1"]' "$tmp/report.json" >/dev/null ||
  fail "report devices: $(jq -c '[.devices[].name]' "$tmp/report.json")"
jq -e 'all(.devices[]; .driver == "rxe")' "$tmp/report.json" >/dev/null || fail "driver is not rxe"
s0=$(hw_counter rxe0 1 sent_pkts)
s1=$(hw_counter rxe1 1 sent_pkts)
((s0 > 0 && s1 > s0)) || fail "expected traffic on both devices, more on rxe1: sent_pkts $s0 / $s1"
ngid=$(grep -c '^rxe0 1 gid ' "$tmp/expected" || true)
((ngid >= 4)) || fail "expected >= 4 GIDs on rxe0, have $ngid"
echo "PASS: $(wc -l <"$tmp/expected") sysfs values equal the report (rxe0: $ngid GIDs," \
  "sent_pkts $s0; rxe1: sent_pkts $s1); rdma statistic agrees"
