#!/usr/bin/env bash
# Many concurrent scrapes, bounded by count (not time): every one succeeds with a complete
# body, and none of them triggers a collection (with --interval 3600 the poll loop collects
# once at start, so rdmatop_collections_total must still be 1 after all of them). That is the
# decoupling docs/exporter.md promises: scrapes never read the kernel.
# Usage: load_test.sh RDMATOP [WORKERS] [SCRAPES_PER_WORKER]
source "$(dirname "$0")/lib.sh"
need curl
bin=$1
workers=${2:-8}
per_worker=${3:-40}

start_exporter "$bin" "$fixtures/mlx5" --interval 3600
scrape_worker() {
  local w=$1 i
  for i in $(seq 1 "$per_worker"); do
    get "$exporter_port" /metrics >"$work/w$w.prom" || { echo "worker $w scrape $i: HTTP error"; return 1; }
    # The last family in sorted order proves the body was not truncated.
    grep -q '^rdmatop_source_up{' "$work/w$w.prom" || { echo "worker $w scrape $i: truncated"; return 1; }
  done
}
worker_pids=()
for w in $(seq 1 "$workers"); do
  scrape_worker "$w" &
  worker_pids+=($!)
done
errors=0
for pid in "${worker_pids[@]}"; do wait "$pid" || errors=$((errors + 1)); done
[ "$errors" = 0 ] || fail "$errors of $workers workers saw errors"
collections=$(get "$exporter_port" /metrics | sed -n 's/^rdmatop_collections_total //p')
[ "$collections" = 1 ] || fail "scrapes triggered collections: rdmatop_collections_total=$collections"
echo "ok: $((workers * per_worker)) concurrent scrapes, 0 errors, 1 collection"
echo "PASS"
