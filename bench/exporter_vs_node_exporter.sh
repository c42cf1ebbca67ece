#!/usr/bin/env bash
# Scrape latency of `rdmatop exporter` against node_exporter's infiniband + netclass collectors
# on the same fixture sysfs tree (node_exporter --path.sysfs), as Prometheus sees it: N
# sequential scrapes of each, median and p90 wall time per scrape, and the ratio.
# Not like for like, on purpose: node_exporter reads sysfs on every scrape, rdmatop serves its
# latest collection (docs/exporter.md), so its per-interval collection cost is printed too.
# Usage: bench/exporter_vs_node_exporter.sh BUILD_DIR [HOST] [SCRAPES]
# shellcheck source=../tests/exporter/lib.sh
source "$(dirname "$0")/../tests/exporter/lib.sh"
need curl
need prometheus-node-exporter
build=${1:?build dir}
host_name=${2:-mlx5}
scrapes=${3:-200}
host="$fixtures/$host_name"

start_exporter "$build/bin/rdmatop" "$host" --interval 5 --no-raw-counters
lean_port=$exporter_port
start_exporter "$build/bin/rdmatop" "$host" --interval 5
ne_port=$(free_port) || fail "no free port"
prometheus-node-exporter --path.sysfs="$host/sys" --collector.disable-defaults \
  --collector.infiniband --collector.netclass --web.listen-address="127.0.0.1:$ne_port" \
  >"$work/node_exporter.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do
  get "$ne_port" /metrics >/dev/null 2>&1 && break
  sleep 0.1
done
get "$ne_port" /metrics >/dev/null || { cat "$work/node_exporter.log" >&2; fail "node_exporter"; }

# measure PORT: prints "median_ms p90_ms samples" over $scrapes scrapes.
measure() {
  for _ in $(seq 1 "$scrapes"); do
    curl -sS --fail -o /dev/null -w '%{time_total}\n' "http://127.0.0.1:$1/metrics"
  done | sort -n | awk '{ t[NR] = $1 * 1000 } END {
    printf "%.3f %.3f", t[int((NR + 1) / 2)], t[int(NR * 0.9 + 0.5)] }'
  printf ' %s\n' "$(get "$1" /metrics | grep -vc '^#')"
}
read -r rd_med rd_p90 rd_n < <(measure "$exporter_port")
read -r lean_med lean_p90 lean_n < <(measure "$lean_port")
read -r ne_med ne_p90 ne_n < <(measure "$ne_port")
collect_ms=$(get "$exporter_port" /metrics |
  awk '/^rdmatop_collection_duration_seconds / { printf "%.3f", $2 * 1000 }')
echo "host $host_name, $scrapes sequential scrapes each"
printf 'rdmatop exporter: median %s ms, p90 %s ms, %s samples (collection: %s ms per interval)\n' \
  "$rd_med" "$rd_p90" "$rd_n" "$collect_ms"
printf 'rdmatop --no-raw-counters: median %s ms, p90 %s ms, %s samples\n' \
  "$lean_med" "$lean_p90" "$lean_n"
printf 'node_exporter:    median %s ms, p90 %s ms, %s samples (infiniband + netclass)\n' \
  "$ne_med" "$ne_p90" "$ne_n"
awk -v a="$rd_med" -v b="$ne_med" 'BEGIN { printf "median scrape latency ratio rdmatop/node_exporter: %.2f\n", a / b }'
