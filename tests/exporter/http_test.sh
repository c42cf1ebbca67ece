#!/usr/bin/env bash
# The real exporter binary on every fixture host: /metrics passes `promtool check metrics` and
# carries each layer (canonical, raw, info, self); / and /-/healthy answer; unknown paths 404.
# Usage: http_test.sh RDMATOP
source "$(dirname "$0")/lib.sh"
need curl
need promtool
bin=$1

for host in "$fixtures"/*/; do
  name=$(basename "$host")
  start_exporter "$bin" "$host" --interval 1
  get "$exporter_port" /metrics >"$work/$name.prom"
  check_metrics "$work/$name.prom" || fail "$name: promtool check metrics"
  for family in rdmatop_build_info rdmatop_collections_total rdma_device_info rdma_port_info \
                rdmatop_source_up rdmatop_last_collection_timestamp_seconds rdma_port_state; do
    grep -q "^${family}[{ ]" "$work/$name.prom" || fail "$name: no $family"
  done
  grep -q '^rdma_raw_[a-z_]*{' "$work/$name.prom" || fail "$name: no raw counters"
  echo "ok: $name ($(grep -vc '^#' "$work/$name.prom") samples)"
done

# mlx5: a known raw counter and a known canonical series, under the documented names.
start_exporter "$bin" "$fixtures/mlx5" --no-raw-counters
get "$exporter_port" /metrics >"$work/noraw.prom"
grep -q '^rdma_raw_' "$work/noraw.prom" && fail "--no-raw-counters still exposes raw counters"
grep -q '^rdma_bytes_total{' "$work/noraw.prom" || fail "mlx5: no rdma_bytes_total"
grep -q '^rdma_raw_ethtool_stats{netdev="ens1f0np0",stat="tx_pause_storm_error_events"} 0$' \
  "$work/mlx5.prom" || fail "mlx5: raw ethtool stat missing"

get "$exporter_port" / | grep -q 'href="/metrics"' || fail "landing page has no /metrics link"
[ "$(get "$exporter_port" /-/healthy)" = "Healthy." ] || fail "/-/healthy"
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$exporter_port/no-such-page")
[ "$code" = 404 ] || fail "unknown path answered $code, want 404"

# The listen address is checked: a port in use is an error, not a silent second server.
if timeout 10 "$bin" exporter --sysfs-root "$fixtures/mlx5/sys" --ethtool-dir "$fixtures/mlx5/ethtool" \
    --listen "127.0.0.1:$exporter_port" 2>"$work/busy.log"; then
  fail "a busy port was accepted"
fi
grep -q 'cannot listen' "$work/busy.log" || fail "busy port: unclear error: $(cat "$work/busy.log")"
echo "PASS"
