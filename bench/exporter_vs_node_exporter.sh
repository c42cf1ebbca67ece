#!/usr/bin/env bash
# Scrape latency and sustained scrapes/s of `rdmatop exporter` against node_exporter's
# infiniband + netclass collectors (issue #18), on the same synthetic N-port sysfs tree
# (bench/make_synthetic_tree.py; node_exporter --path.sysfs), both on loopback, measured by the
# same client in the same run:
#   1. latency: wrk, one connection, back to back for SECONDS, plain and with
#      "Accept-Encoding: gzip" (what Prometheus sends); p50/p90/p99 and the p50 ratio;
#   2. the first scrape after a collection: curl once per collection interval, so every scrape
#      finds a collection it has not served yet (Prometheus scraping every 15 s an exporter
#      collecting every 5 s sees only such scrapes);
#   3. throughput: wrk with 8 connections on 2 threads for SECONDS, gzip: scrapes/s sustained.
# Not like for like, on purpose: node_exporter reads sysfs on every scrape, rdmatop serves the
# page it rendered after its latest collection (docs/exporter.md) and exposes far more series.
# Usage: bench/exporter_vs_node_exporter.sh BUILD_DIR [PORTS] [SECONDS]
# shellcheck source=../tests/exporter/lib.sh
source "$(dirname "$0")/../tests/exporter/lib.sh"
install_hint="scripts/install-deps.sh --bench"
need curl
need wrk
need python3
need prometheus-node-exporter
build=${1:?build dir}
ports=${2:-16}
seconds=${3:-8}
tree="$work/host$ports"
python3 "$repo/bench/make_synthetic_tree.py" "$tree" "$ports" >/dev/null || fail "tree generator"

start_exporter "$build/bin/rdmatop" "$tree" --interval 1
rd_port=$exporter_port
ne_port=$(free_port) || fail "no free port"
prometheus-node-exporter --path.sysfs="$tree/sys" --collector.disable-defaults \
  --collector.infiniband --collector.netclass --web.listen-address="127.0.0.1:$ne_port" \
  >"$work/node_exporter.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do
  get "$ne_port" /metrics >/dev/null 2>&1 && break
  sleep 0.1
done
get "$ne_port" /metrics >/dev/null || { cat "$work/node_exporter.log" >&2; fail "node_exporter"; }

# wrk_run PORT ENCODING THREADS CONNECTIONS: "p50_ms p90_ms p99_ms scrapes_per_s errors".
wrk_run() {
  wrk -t"$3" -c"$4" -d"${seconds}s" --latency -H "Accept-Encoding: $2" \
    "http://127.0.0.1:$1/metrics" | awk '
    function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; return v * 1000 }
    $1 == "50%" { p50 = ms($2) } $1 == "90%" { p90 = ms($2) } $1 == "99%" { p99 = ms($2) }
    /^Requests\/sec/ { rps = $2 } /Non-2xx|Socket errors/ { errors = errors " " $0 }
    END { printf "%.3f %.3f %.3f %.0f %s\n", p50, p90, p99, rps, (errors == "" ? "none" : "yes") }'
}
# first_scrapes PORT ENCODING: median ms of 10 curl scrapes, one per collection interval.
first_scrapes() {
  for _ in $(seq 1 10); do
    sleep 1.02
    curl -sS --fail -o /dev/null -H "Accept-Encoding: $2" -w '%{time_total}\n' \
      "http://127.0.0.1:$1/metrics"
  done | sort -n | awk '{ t[NR] = $1 * 1000 } END { printf "%.3f", (t[5] + t[6]) / 2 }'
}

echo "host: $ports synthetic mlx5 ports; rdmatop $(get "$rd_port" /metrics | grep -vc '^#') samples," \
  "node_exporter $(get "$ne_port" /metrics | grep -vc '^#') samples; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "-- latency, one connection back to back for ${seconds} s (wrk): p50 / p90 / p99 ms, scrapes/s"
for enc in identity gzip; do
  read -r a50 a90 a99 arps aerr < <(wrk_run "$rd_port" "$enc" 1 1)
  read -r b50 b90 b99 brps berr < <(wrk_run "$ne_port" "$enc" 1 1)
  printf '%-8s rdmatop %s / %s / %s (%s/s, errors %s)  node_exporter %s / %s / %s (%s/s, errors %s)' \
    "$enc" "$a50" "$a90" "$a99" "$arps" "$aerr" "$b50" "$b90" "$b99" "$brps" "$berr"
  awk -v a="$a50" -v b="$b50" 'BEGIN { printf "  p50 ratio %.3f\n", a / b }'
done
echo "-- the first scrape after a collection (curl, one per 1 s collection): median ms"
for enc in identity gzip; do
  a=$(first_scrapes "$rd_port" "$enc")
  b=$(first_scrapes "$ne_port" "$enc")
  printf '%-8s rdmatop %s  node_exporter %s' "$enc" "$a" "$b"
  awk -v a="$a" -v b="$b" 'BEGIN { printf "  ratio %.3f\n", a / b }'
done
echo "-- sustained, 8 connections on 2 threads for ${seconds} s (wrk, gzip)"
read -r a50 a90 a99 arps aerr < <(wrk_run "$rd_port" gzip 2 8)
read -r b50 b90 b99 brps berr < <(wrk_run "$ne_port" gzip 2 8)
printf 'rdmatop %s scrapes/s (p50 %s ms, p99 %s ms, errors %s)  node_exporter %s scrapes/s (p50 %s ms, errors %s)\n' \
  "$arps" "$a50" "$a99" "$aerr" "$brps" "$b50" "$berr"
collections=$(get "$rd_port" /metrics | awk '/^rdmatop_collections_total / { print $2 }')
echo "rdmatop collected $collections times meanwhile (--interval 1): every scrape above ran beside collections"
