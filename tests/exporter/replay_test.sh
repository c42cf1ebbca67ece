#!/usr/bin/env bash
# `rdmatop exporter --from FILE`: a recording made with `rdmatop record` is served on /metrics,
# valid for promtool, with the recorded host's ports.
# Usage: replay_test.sh RDMATOP
source "$(dirname "$0")/lib.sh"
need curl
need promtool
bin=$1
host=$(cd "$(dirname "$0")/../fixtures/hosts/mlx5" && pwd)

"$bin" record -o "$work/rec.jsonl" --sysfs-root "$host/sys" --ethtool-dir "$host/ethtool" \
  --interval 0.05 --duration 0.2s 2>/dev/null || fail "record failed"
log=$(mktemp "$work/replay.XXXXXX")
"$bin" exporter --from "$work/rec.jsonl" --interval 0.1 --listen 127.0.0.1:0 2>"$log" &
pids+=($!)
for _ in $(seq 1 100); do
  exporter_port=$(sed -n 's/.*listening on port \([0-9]*\).*/\1/p' "$log")
  [ -n "$exporter_port" ] && break
  kill -0 "${pids[-1]}" 2>/dev/null || { cat "$log" >&2; fail "exporter exited"; }
  sleep 0.1
done
[ -n "$exporter_port" ] || fail "exporter did not report its port"
get "$exporter_port" /metrics >"$work/replay.prom"
grep -q '^rdma_port_info{.*device="mlx5_0"' "$work/replay.prom" || fail "mlx5_0 not served"
grep -q '^rdma_pfc_pause_frames_total{.*device="mlx5_0".*priority="3"' "$work/replay.prom" ||
  fail "canonical series not served"
check_metrics "$work/replay.prom" || fail "promtool check metrics"
# After the recording ends the exporter keeps serving its last snapshot.
sleep 1
get "$exporter_port" /metrics >"$work/replay-after.prom"
grep -q '^rdma_port_info{.*device="mlx5_0"' "$work/replay-after.prom" ||
  fail "the last snapshot is no longer served after the recording ended"
echo "PASS"
