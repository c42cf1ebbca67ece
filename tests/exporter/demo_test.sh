#!/usr/bin/env bash
# `rdmatop exporter --demo pfc-storm`: the simulator's storm reaches /metrics as a firing
# rdmatop_finding, and the output stays valid for promtool while the scenario plays.
# Usage: demo_test.sh RDMATOP
source "$(dirname "$0")/lib.sh"
need curl
need promtool
bin=$1
alert=RdmaPfcStormWatchdogTriggered

log=$(mktemp "$work/demo.XXXXXX")
"$bin" exporter --demo pfc-storm --interval 0.1 --listen 127.0.0.1:0 2>"$log" &
pids+=($!)
for _ in $(seq 1 100); do
  exporter_port=$(sed -n 's/.*listening on port \([0-9]*\).*/\1/p' "$log")
  [ -n "$exporter_port" ] && break
  kill -0 "${pids[-1]}" 2>/dev/null || { cat "$log" >&2; fail "exporter exited"; }
  sleep 0.1
done
[ -n "$exporter_port" ] || fail "exporter did not report its port"

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
