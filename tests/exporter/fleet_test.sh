#!/usr/bin/env bash
# Fleet integration (issue #20): four `rdmatop exporter --demo` processes are four hosts of one
# fleet (two healthy at a steady load, one playing a PFC storm, one with firmware skew), scraped by one real
# Prometheus that evaluates the exported pack and the fleet rules (rules/fleet/fleet.yaml).
# Checks that every firing alert belongs to a host that has the fault (none names a healthy
# host) and that the fleet rules name the odd host: the storming port as a pause outlier among
# its peers of the same NIC model, the device on a minority firmware version.
#
# The test is about attribution, not timing: the rule files are loaded with every `for:` set
# to 0s so that alerts fire within the test's bound (the shipped `for:` values are tested by the
# promtool unit tests of each rule file).
# Usage: fleet_test.sh RDMATOP
source "$(dirname "$0")/lib.sh"
need curl
need prometheus
bin=$1

# The simulated hosts keep simulated time with the wall clock only while each tick takes less
# than --interval; four sanitizer builds on two cores did not (the storm's pause rate, a share of
# wall time, then stayed under the alert's 0.5). Their PFC fast path, most of a demo's CPU, is off:
# the alerts here are Prometheus' own, over the exported counters.
# The healthy hosts play the built-in healthy scenario's first phase only (moderate load). Its
# second phase (heavy load, with the ECN marks and pause of a busy lossless fabric) begins after
# 60 ticks, 15 s here when a host keeps pace, and the two healthy hosts, started seconds apart
# under sanitizers, begin it apart: while one host alone carries those signals its ports can be
# ten times the fleet's median, which `for: 0s` turns into an alert (the shipped `for: 10m` does
# not). RdmaFleetPortOutlier named a healthy host in two sanitizer runs; this is one way it can,
# not reproduced here with a plain build (the first healthy host 4 s ahead, 20 s held). The
# query below keeps each alert's signal, device and port, so a failure says which it was.
cat >"$work/steady-healthy.yaml" <<'EOF'
name: steady-healthy
description: the healthy scenario's moderate load, for the whole test
interval: 5s
phases:
  - name: moderate load
    duration: 30m
expect_quiet: true
EOF
prom_targets=()
for scenario in "$work/steady-healthy.yaml" "$work/steady-healthy.yaml" pfc-storm firmware; do
  start_demo_exporter "$bin" "$scenario" --interval 0.25 --fast-interval 0
  prom_targets+=("$exporter_port")
  case $scenario in
    pfc-storm) storm_host="127.0.0.1:$exporter_port" ;;
    firmware) firmware_host="127.0.0.1:$exporter_port" ;;
  esac
done

"$bin" rules export --format prometheus -o "$work/pack.yaml"
for file in "$work/pack.yaml" "$repo/rules/fleet/fleet.yaml"; do
  sed -E 's/^( +)for: .*/\1for: 0s/' "$file" >"$work/$(basename "$file" .yaml)-now.yaml"
done
start_prometheus "$work/pack-now.yaml" "$work/fleet-now.yaml"

has_result() { query "$1" | grep -q "\"result\":\[{"; }
wait_for "four hosts scraped" has_result 'count(up{job="rdmatop"} == 1) == 4'
echo "ok: Prometheus scrapes four hosts"

wait_for "the fleet pause outlier on the storming host" has_result \
  "ALERTS{alertname=\"RdmaFleetPortOutlier\",alertstate=\"firing\",instance=\"$storm_host\",device=\"mlx5_0\",signal=\"pfc_pause_frames\"}"
echo "ok: RdmaFleetPortOutlier names $storm_host mlx5_0 (pfc-storm)"
wait_for "the fleet firmware skew on the skewed host" has_result \
  "ALERTS{alertname=\"RdmaFleetFirmwareSkew\",alertstate=\"firing\",instance=\"$firmware_host\",device=\"mlx5_2\"}"
echo "ok: RdmaFleetFirmwareSkew names $firmware_host mlx5_2 (firmware)"
wait_for "the storm alert on the storming host" has_result \
  "ALERTS{alertname=\"RdmaPfcStormFromNic\",alertstate=\"firing\",instance=\"$storm_host\"}"
echo "ok: RdmaPfcStormFromNic fires on $storm_host"

# Every alert that fired at any point of the run (ALERTS over the last 10 minutes), by host.
query 'count by (alertname, instance, severity, signal, device, port) (max_over_time(ALERTS{alertstate="firing"}[10m]))' \
  >"$work/fired.json"
python3 - "$work/fired.json" "$storm_host" "$firmware_host" <<'EOF'
import json, sys
fired = json.load(open(sys.argv[1]))["data"]["result"]
faulty = set(sys.argv[2:])
wrong = [a["metric"] for a in fired if a["metric"].get("instance") not in faulty]
for metric in sorted((a["metric"] for a in fired), key=lambda m: (m.get("instance", ""), m["alertname"])):
    where = " ".join(metric[k] for k in ("device", "port", "signal") if k in metric)
    print(f"  fired: {metric.get('instance', '(fleet)')} {metric['alertname']} {metric.get('severity', '')} {where}")
if not fired:
    sys.exit("FAIL: no alert fired at all")
if wrong:
    sys.exit(f"FAIL: alerts on hosts without the fault: {wrong}")
EOF
echo "ok: every alert that fired belongs to a host with the fault"
echo "PASS"
