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

start_demo_exporter "$bin" probe-loss --interval 0.2

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

start_prometheus

# A finite positive quantile for the rc_send stream (bounded polling; no timing is asserted).
quantile_ok() {
  query 'histogram_quantile(0.99, rate(rdma_probe_rtt_seconds_bucket{transport="rc_send",target="192.168.100.2"}[20s]))' \
    >"$work/q.json"
  grep -q '"value":\[[0-9.]*,"[0-9.e+-]*"\]' "$work/q.json" && ! grep -q '"NaN"' "$work/q.json"
}
wait_for "histogram_quantile on rdma_probe_rtt_seconds_bucket" quantile_ok
echo "ok: histogram_quantile on rdma_probe_rtt_seconds_bucket: $(cat "$work/q.json")"
query 'rdma_probe_sent_total{transport="tcp",target="192.168.100.2"}' | grep -q '"result":\[{' \
  || fail "no rdma_probe_sent_total for the TCP baseline"
echo "PASS"
