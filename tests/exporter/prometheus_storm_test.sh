#!/usr/bin/env bash
# A real Prometheus (Debian's 2.42) scrapes the real exporter on loopback with the shipped
# alert rules (`rdmatop rules export`). The test raises the mlx5 pause-storm watchdog counter in
# a temp copy of the fixture host (the exporter re-reads the tree every poll) and expects the
# storm alert to fire in BOTH engines: Prometheus' ALERTS and rdmatop's rdmatop_finding.
# Usage: prometheus_storm_test.sh RDMATOP
source "$(dirname "$0")/lib.sh"
need curl
need prometheus
bin=$1
alert=RdmaPfcStormWatchdogTriggered

host="$work/mlx5"
cp -a "$fixtures/mlx5" "$host"
stats="$host/ethtool/ens1f0np0.txt"
grep -q '^     tx_pause_storm_error_events: 0$' "$stats" || fail "fixture changed: no storm counter"
start_exporter "$bin" "$host" --interval 0.5

"$bin" rules export --format prometheus -o "$work/rules.yaml"

start_prometheus "$work/rules.yaml"

has_result() { query "$1" | grep -q "\"result\":\[{"; }

wait_for "the first scrape" has_result 'up{job="rdmatop"} == 1'
has_result 'rdma_device_info{device="mlx5_0",driver="mlx5"}' || fail "no rdma_device_info"
has_result 'rdma_pause_storm_events_total{device="mlx5_0",level="error"} == 0' \
  || fail "no storm counter series before the storm"
has_result "ALERTS{alertname=\"$alert\"}" && fail "$alert active before the storm"
echo "ok: Prometheus scrapes the exporter"

sed -i 's/^     tx_pause_storm_error_events: 0$/     tx_pause_storm_error_events: 3/' "$stats"
wait_for "$alert in Prometheus" \
  has_result "ALERTS{alertname=\"$alert\",alertstate=\"firing\",device=\"mlx5_0\"}"
echo "ok: Prometheus fires $alert"
rdmatop_fires() {
  # Through a file: with pipefail, grep -q quitting early would fail the pipe on curl's SIGPIPE.
  get "$exporter_port" /metrics >"$work/fires.prom"
  grep -q "^rdmatop_finding{.*alertname=\"$alert\".*device=\"mlx5_0\".*state=\"firing\"} 1$" \
    "$work/fires.prom"
}
wait_for "$alert in rdmatop" rdmatop_fires
echo "ok: rdmatop fires $alert"
echo "PASS"
