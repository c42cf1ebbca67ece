#!/usr/bin/env bash
# `rdmatop exporter --demo pfc-storm`: the simulator's storm reaches /metrics as a firing
# rdmatop_finding, and the output stays valid for promtool while the scenario plays.
# Usage: demo_test.sh RDMATOP
source "$(dirname "$0")/lib.sh"
need curl
need promtool
bin=$1
alert=RdmaPfcStormWatchdogTriggered

start_demo_exporter "$bin" pfc-storm --interval 0.1

# The scenario expects the alert within 20 simulated ticks; allow far more real time.
for _ in $(seq 1 300); do
  get "$exporter_port" /metrics >"$work/demo.prom"
  if grep -q "^rdmatop_finding{alertname=\"$alert\",device=\"mlx5_0\",.*state=\"firing\"} 1$" \
      "$work/demo.prom"; then
    check_metrics "$work/demo.prom" || fail "promtool check metrics"
    echo "ok: $alert fires in the demo after $(sed -n 's/^rdmatop_collections_total //p' "$work/demo.prom") collections"
    echo "PASS"
    exit 0
  fi
  sleep 0.2
done
fail "$alert never fired in the demo"
