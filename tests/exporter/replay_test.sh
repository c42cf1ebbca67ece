#!/usr/bin/env bash
# `rdmatop exporter --from FILE...`: a recording made with `rdmatop record`, rotated into several
# files, is served on /metrics as one timeline, valid for promtool, with the recorded host's
# ports.
# Usage: replay_test.sh RDMATOP
source "$(dirname "$0")/lib.sh"
need curl
need promtool
bin=$1
host=$(cd "$(dirname "$0")/../fixtures/hosts/mlx5" && pwd)

# About two ~11 kB snapshots per file.
"$bin" record -o "$work/rec.jsonl" --sysfs-root "$host/sys" --ethtool-dir "$host/ethtool" \
  --interval 0.05 --duration 0.3s --max-bytes 25000 --rotate 20 2>/dev/null || fail "record failed"
files=("$work"/rec.jsonl*)
[ "${#files[@]}" -gt 1 ] || fail "the recording did not rotate"
# The glob lists the newest file (rec.jsonl) first: the files' own sequence orders them.
start_rdmatop_exporter "$bin" --from "${files[@]}" --interval 0.1
get "$exporter_port" /metrics >"$work/replay.prom"
grep -q '^rdma_port_info{.*device="mlx5_0"' "$work/replay.prom" || fail "mlx5_0 not served"
grep -q '^rdma_pfc_pause_frames_total{.*device="mlx5_0".*priority="3"' "$work/replay.prom" ||
  fail "canonical series not served"
check_metrics "$work/replay.prom" || fail "promtool check metrics"

# After the recording ends the exporter keeps serving its last snapshot: the newest file's last.
last_wall=$(tail -n 1 "$work/rec.jsonl" | sed -n 's/.*"wall_unix_ns":\([0-9]*\).*/\1/p')
[ -n "$last_wall" ] || fail "no wall time in the recording"
served_last() {
  get "$exporter_port" /metrics >"$work/replay-after.prom"
  awk -v want="$last_wall" '/^rdmatop_snapshot_timestamp_seconds / {
    d = $2 - want / 1e9; found = (d < 0 ? -d : d) < 0.001 } END { exit !found }' \
    "$work/replay-after.prom"
}
wait_for "the last recorded snapshot to be served" served_last
grep -q '^rdma_port_info{.*device="mlx5_0"' "$work/replay-after.prom" ||
  fail "the last snapshot is no longer served after the recording ended"
echo "ok: ${#files[@]} rotated files served as one timeline"
echo "PASS"
