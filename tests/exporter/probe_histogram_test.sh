#!/usr/bin/env bash
# A real Prometheus (Debian's 2.42) scrapes `rdmatop exporter --demo probe-loss`: the simulated
# prober's RTT is a real histogram (TYPE histogram, one per stream) that promtool accepts and on
# which Prometheus' histogram_quantile answers, next to the probe counters.
# Usage: probe_histogram_test.sh RDMATOP
source "$(dirname "$0")/lib.sh"
need curl
need promtool
need prometheus
bin=$1

log=$(mktemp "$work/probe.XXXXXX")
"$bin" exporter --demo probe-loss --interval 0.2 --listen 127.0.0.1:0 2>"$log" &
pids+=($!)
for _ in $(seq 1 100); do
  exporter_port=$(sed -n 's/.*listening on port \([0-9]*\).*/\1/p' "$log")
  [ -n "$exporter_port" ] && break
  kill -0 "${pids[-1]}" 2>/dev/null || { cat "$log" >&2; fail "exporter exited"; }
  sleep 0.1
done
[ -n "$exporter_port" ] || fail "exporter did not report its port"

for _ in $(seq 1 100); do
  get "$exporter_port" /metrics >"$work/probe.prom"
  grep -q '^rdma_probe_rtt_seconds_count{' "$work/probe.prom" && break
  sleep 0.2
done
grep -q '^# TYPE rdma_probe_rtt_seconds histogram$' "$work/probe.prom" \
  || fail "rdma_probe_rtt_seconds is not served as a histogram"
grep -q '^rdma_probe_rtt_seconds_bucket{group="tor-1",target="192.168.100.2",tclass="106",transport="rc_send",le="+Inf"} ' \
  "$work/probe.prom" || fail "no +Inf bucket for the rc_send stream"
check_metrics "$work/probe.prom" || fail "promtool check metrics"
echo "ok: the exporter serves probe histograms promtool accepts"

prom_port=$(free_port) || fail "no free port"
cat >"$work/prometheus.yml" <<YAML
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: rdmatop
    static_configs: [{targets: ["127.0.0.1:$exporter_port"]}]
YAML
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
  --web.listen-address="127.0.0.1:$prom_port" >"$work/prometheus.log" 2>&1 &
pids+=($!)
prom_pid=${pids[-1]}

query() { curl -sS --max-time 5 -G "http://127.0.0.1:$prom_port/api/v1/query" \
  --data-urlencode "query=$1" 2>/dev/null || true; }
# A finite positive quantile for the rc_send stream (bounded polling; no timing is asserted).
quantile_ok() {
  query 'histogram_quantile(0.99, rate(rdma_probe_rtt_seconds_bucket{transport="rc_send",target="192.168.100.2"}[20s]))' \
    >"$work/q.json"
  grep -q '"value":\[[0-9.]*,"[0-9.e+-]*"\]' "$work/q.json" && ! grep -q '"NaN"' "$work/q.json"
}
for _ in $(seq 1 120); do
  if quantile_ok; then
    echo "ok: histogram_quantile on rdma_probe_rtt_seconds_bucket: $(cat "$work/q.json")"
    query 'rdma_probe_sent_total{transport="tcp",target="192.168.100.2"}' | grep -q '"result":\[{' \
      || fail "no rdma_probe_sent_total for the TCP baseline"
    echo "PASS"
    exit 0
  fi
  kill -0 "$prom_pid" 2>/dev/null || { tail -20 "$work/prometheus.log" >&2; fail "prometheus died"; }
  sleep 1
done
tail -20 "$work/prometheus.log" >&2
cat "$work/q.json" >&2
fail "histogram_quantile never answered"
