#!/bin/bash
# Inside the rxe VM: the processes holding RDMA objects (host readiness), read from the real
# kernel's RDMA netlink resource dumps and /proc.
#   * An ibv_rc_pingpong server on rxe0 (it creates its PD, MR, CQ and QP before it waits for a
#     client) runs with RLIMIT_MEMLOCK set to 1 MiB; `rdmatop report --json` must list its PID
#     with comm "ibv_rc_pingpong", QP/CQ/MR/PD counts > 0 on rxe0, memlock_soft_bytes 1048576,
#     a pinned_bytes value, cap_ipc_lock true (it runs as root) and, where the kernel has NUMA
#     sysfs, the NUMA nodes of its CPUs (all of this VM's).
#   * Every owner's QP, CQ, MR and PD counts on rxe0 must equal `rdma -j resource show` taken in
#     the same run (kernel users, e.g. ib_core's GSI QP, included).
#   * The same with --counters sysfs: the owners need RDMA netlink, not the netlink counters.
#   * Threads fold into their process: `rdmatop responder` and a running `rdmatop probe` create
#     their QPs on worker threads, which the kernel (and so `rdma resource show`) names by thread
#     ID. rdmatop must list them under the process ID, with the threads' objects added up: the
#     comparison above maps each of iproute2's owners to the Tgid in /proc/<pid>/status.
#   * The rdma-processes statuses are ok.
#   * QP counters (docs/report-format.md "QP counters"), with the server's QP alive: rdmatop's
#     counter mode of rxe0/1 equals `rdma statistic qp mode`, its bound counters equal
#     `rdma statistic qp show` (none: rxe has no counter_alloc_stats/counter_bind_qp). Then
#     `rdma statistic qp set link rxe0/1 auto type on`: whatever the kernel answers, rdmatop's
#     mode must follow `rdma statistic qp mode`, and with a second server's QP created under that
#     mode the bound counters must still equal `rdma statistic qp show`.
# Usage: rdma-processes.sh RDMATOP_BINARY
set -euo pipefail
# shellcheck source=tests/vm/cases/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

rdmatop="${1:?usage: rdma-processes.sh RDMATOP_BINARY}"
[[ -x "$rdmatop" ]] || fail "not executable: $rdmatop"
tmp=$(mktemp -d)
server=
prober=
cleanup() {
  if [[ -n "$server" ]]; then kill "$server" 2>/dev/null || true; fi
  if [[ -n "$prober" ]]; then kill "$prober" 2>/dev/null || true; fi
  stop_probe_responder
}
trap cleanup EXIT
tgid_of() { awk '/^Tgid:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo "$1"; }

# ulimit -l is in KiB; exec keeps the PID, so $! is the pingpong server itself.
bash -c 'ulimit -l 1024 && exec ibv_rc_pingpong -d rxe0 -g "$1" -s 64 -n 5 -p 18520' _ \
  "$RXE_VM_GID_INDEX" >"$tmp/server.log" 2>&1 &
server=$!
# A server's objects exist once it listens for the client's TCP connection.
wait_listening() { # tcp-port pid log
  local i
  for ((i = 0; ; i++)); do
    ss -Hltn "sport = :$1" | grep -q . && return
    kill -0 "$2" 2>/dev/null || { cat "$3"; fail "ibv_rc_pingpong server on $1 died"; }
    ((i < 300)) || fail "ibv_rc_pingpong server not listening on $1 after 30 s"
    sleep 0.1
  done
}
wait_listening 18520 "$server" "$tmp/server.log"

# Two multi-threaded owners: the responder and a prober that keeps its connection (and so its
# QP, made by a worker thread) for the whole test.
start_probe_responder "$rdmatop" "$RXE_VM_IP"
"$rdmatop" probe "$RXE_VM_IP" --transport rc_send --rate 5 --duration 300 >/dev/null 2>&1 &
prober=$!
for ((i = 0; ; i++)); do
  rdma -j resource show qp | jq -r '.[] | select(.ifname == "rxe0") | .pid // empty' \
    >"$tmp/qp-pids"
  while read -r pid; do [[ "$(tgid_of "$pid")" == "$prober" ]] && break 2; done <"$tmp/qp-pids"
  ((i < 300)) || fail "no QP of the prober (pid $prober) after 30 s"
  sleep 0.1
done
threads=0
while read -r pid; do [[ "$(tgid_of "$pid")" != "$pid" ]] && threads=$((threads + 1)); done \
  <"$tmp/qp-pids"
((threads > 0)) || fail "no QP is owned by a thread other than its process's main thread"
echo "rdma resource show names $threads QP owner(s) by a thread ID, not the process ID"

"$rdmatop" report --json --interval 0 >"$tmp/report.json" || fail "rdmatop report exited $?"
for kind in qp cq mr pd; do
  rdma -j resource show "$kind" >"$tmp/rdma-$kind.json" || fail "rdma resource show $kind failed"
done
"$rdmatop" report --json --interval 0 --counters sysfs >"$tmp/sysfs.json" ||
  fail "rdmatop report --counters sysfs exited $?"
kill -0 "$server" 2>/dev/null || { cat "$tmp/server.log"; fail "server exited during the reads"; }

# The server's entry.
jq -e --argjson pid "$server" '
  [.host_readiness.processes[] | select(.pid == $pid)] | length == 1' "$tmp/report.json" \
  >/dev/null || fail "pid $server not listed: $(jq -c '.host_readiness.processes' "$tmp/report.json")"
jq -c --argjson pid "$server" '.host_readiness.processes[] | select(.pid == $pid)' \
  "$tmp/report.json" >"$tmp/server.json"
echo "server entry: $(cat "$tmp/server.json")"
jq -e '.comm == "ibv_rc_pingpong"
  and .qps.rxe0 > 0 and .cqs.rxe0 > 0 and .mrs.rxe0 > 0 and .pds.rxe0 > 0
  and .memlock_soft_bytes == 1048576 and .memlock_unlimited == false
  and (.pinned_bytes | type) == "number" and .cap_ipc_lock == true' "$tmp/server.json" \
  >/dev/null || fail "server entry is wrong"
if [[ -d /sys/devices/system/node/node0 ]]; then
  # The server may run on every CPU, hence on every node that has CPUs.
  want=$(grep -l . /sys/devices/system/node/node*/cpulist | sed 's|.*/node\([0-9]*\)/cpulist|\1|' |
    sort -n | paste -sd, -)
  got=$(jq -r '.cpu_numa_nodes | join(",")' "$tmp/server.json")
  [[ "$got" == "$want" ]] || fail "cpu_numa_nodes [$got], expected [$want]"
  # rxe is virtual: no NUMA node, so no placement.
  jq -e '.numa_placement.rxe0 == null' "$tmp/server.json" >/dev/null ||
    fail "numa_placement of rxe0 should be null"
fi

# Every owner's counts on rxe0 against iproute2's, one line per (kind, owner): "kind owner n".
# iproute2 names a user owner by pid and a kernel one by its name (brackets dropped here).
for kind in qp cq mr pd; do
  jq -r --arg k "$kind" '.[] | select(.ifname == "rxe0")
    | "\($k) \(if .pid then (.pid | tostring) else (.comm | ltrimstr("[") | rtrimstr("]")) end)"' \
    "$tmp/rdma-$kind.json"
done | while read -r kind owner; do
  [[ "$owner" =~ ^[0-9]+$ ]] && owner=$(tgid_of "$owner")
  echo "$kind $owner"
done | sort | uniq -c | awk '{ print $2, $3, $1 }' | sort >"$tmp/expected"
for f in report sysfs; do
  jq -r '.host_readiness.processes[] as $p
    | ["qp", "cq", "mr", "pd"][] as $k
    | ($p[$k + "s"].rxe0 // empty) as $n
    | "\($k) \(if $p.pid != 0 then ($p.pid | tostring) else ($p.comm | ltrimstr("[") | rtrimstr("]")) end) \($n)"' \
    "$tmp/$f.json" | sort >"$tmp/actual-$f"
  if ! diff -u "$tmp/expected" "$tmp/actual-$f"; then
    fail "owners ($f run) differ from rdma resource show (- rdma, + rdmatop)"
  fi
done
grep -q "^qp $server " "$tmp/expected" || fail "rdma resource show lacks the server's QP"
grep -q "^qp $prober " "$tmp/actual-report" || fail "rdmatop does not list the prober's QP"
echo "owners on rxe0 equal rdma resource show: $(tr '\n' ';' <"$tmp/expected")"

# Statuses: the host-wide one and rxe0's, all ok.
jq -e '[.sources[] | select(.source == "rdma-processes")]
  | length >= 2 and all(.state == "ok")' "$tmp/report.json" >/dev/null ||
  fail "rdma-processes statuses: $(jq -c '[.sources[] | select(.source == "rdma-processes")]' \
    "$tmp/report.json")"
echo "PASS: pid $server (ibv_rc_pingpong) listed with its objects, memlock 1 MiB and CPUs"

# --- QP counters ---------------------------------------------------------------------------
# iproute2 prints the mode as "qp auto off" unless auto mode is on ("qp auto type on"), and each
# bound counter as one object with its cntn and lqpn list.
qp_counters_equal() { # label report.json
  local label=$1 report=$2 want got
  rdma -j statistic qp mode link rxe0/1 >"$tmp/rdma-mode.json" || fail "rdma statistic qp mode"
  rdma -j statistic qp show link rxe0/1 >"$tmp/rdma-show.json" || fail "rdma statistic qp show"
  want=$(jq -r '.[] | select(.ifname == "rxe0" and .port == 1) | .mode' "$tmp/rdma-mode.json")
  got=$(jq -r '.qp_counters[] | select(.device == "rxe0" and .port == 1)
    | if (.mode | startswith("auto")) then
        "qp auto " + ([if (.auto_mask % 2) == 1 then "type" else empty end,
                       if (.auto_mask / 2 | floor) % 2 == 1 then "pid" else empty end]
                      | join(",")) + " on"
      else "qp auto off" end' "$report")
  echo "$label: rdma statistic qp mode: \"$want\"; rdmatop: \"$got\""
  [[ -n "$want" && "$want" == "$got" ]] || fail "$label: QP counter mode differs"
  want=$(jq -c '[.[] | select(.ifname == "rxe0") | {cntn, lqpn}] | sort' "$tmp/rdma-show.json")
  got=$(jq -c '[.qp_counters[] | select(.device == "rxe0") | .bound_counters[]
    | {cntn: .id, lqpn: .qpns}] | sort' "$report")
  echo "$label: rdma statistic qp show: $want; rdmatop: $got"
  [[ "$want" == "$got" ]] || fail "$label: bound counters differ"
  jq -e '[.sources[] | select(.source == "netlink-qp-counters" and .target == "rxe0/1")]
    | length == 1 and .[0].state == "ok"' "$report" >/dev/null ||
    fail "$label: netlink-qp-counters status: $(jq -c '[.sources[] |
      select(.source == "netlink-qp-counters")]' "$report")"
}

qp_counters_equal "QP alive" "$tmp/report.json"
"$rdmatop" report --interval 0 >"$tmp/report.txt" || fail "rdmatop report (text) exited $?"
grep -E '^  rxe0/1 +none +0 +driver rxe cannot bind QP counters' "$tmp/report.txt" ||
  fail "text report lacks the rxe0/1 QP counter line: $(sed -n '/^QP COUNTERS/,/^$/p' \
    "$tmp/report.txt")"

if rdma statistic qp set link rxe0/1 auto type on 2>"$tmp/set.err"; then
  echo "rdma statistic qp set link rxe0/1 auto type on: accepted"
  # A QP created under auto mode asks for a counter (rdma_counter_bind_qp_auto on its move to
  # INIT); rxe cannot allocate one, so it stays unbound, and both tools must say so.
  ibv_rc_pingpong -d rxe0 -g "$RXE_VM_GID_INDEX" -s 64 -n 5 -p 18521 >"$tmp/server2.log" 2>&1 &
  server2=$!
  trap '[[ -n "$server" ]] && kill "$server" 2>/dev/null; kill "$server2" 2>/dev/null || true' EXIT
  wait_listening 18521 "$server2" "$tmp/server2.log"
  rdma -j resource show qp link rxe0/1 >"$tmp/rdma-qp2.json" || fail "rdma resource show qp"
  jq -e --argjson pid "$server2" '[.[] | select(.pid == $pid)] | length == 1' \
    "$tmp/rdma-qp2.json" >/dev/null || fail "the second server's QP is not in rdma resource show"
  echo "second server (pid $server2) holds QP $(jq --argjson pid "$server2" \
    '.[] | select(.pid == $pid) | .lqpn' "$tmp/rdma-qp2.json"), created under auto mode"
else
  echo "rdma statistic qp set link rxe0/1 auto type on: rejected: $(cat "$tmp/set.err")"
fi
"$rdmatop" report --json --interval 0 >"$tmp/report-auto.json" || fail "rdmatop report exited $?"
qp_counters_equal "after set auto type on" "$tmp/report-auto.json"
echo "PASS: QP counter mode and bound counters of rxe0/1 equal rdma statistic qp mode/show"
