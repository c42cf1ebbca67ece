#!/usr/bin/env bash
# Keeps deploy/ honest: the shipped Prometheus alert rules equal what `rdmatop rules export`
# generates from the built-in pack (and pass promtool), and every metric the Grafana dashboard
# queries is emitted by the exporter on some fixture host or documented in docs/.
# Usage: deploy_test.sh RDMATOP
source "$(dirname "$0")/lib.sh"
need curl
bin=$1
shipped="$repo/deploy/prometheus/rdmatop-alerts.yaml"

"$bin" rules export --format prometheus -o "$work/alerts.yaml"
diff -u "$shipped" "$work/alerts.yaml" \
  || fail "deploy/prometheus/rdmatop-alerts.yaml is stale; regenerate it with:
  rdmatop rules export --format prometheus -o deploy/prometheus/rdmatop-alerts.yaml"
if command -v promtool >/dev/null; then
  promtool check rules "$shipped" || fail "promtool check rules"
fi
echo "ok: shipped alert rules are in sync with the built-in pack"

# The systemd unit parses, with no unknown keys (ExecStart pointed at the built binary).
if command -v systemd-analyze >/dev/null; then
  sed "s|/usr/bin/rdmatop|$(readlink -f "$bin")|" "$repo/deploy/systemd/rdmatop-exporter.service" \
    >"$work/rdmatop-exporter.service"
  out=$(systemd-analyze verify "$work/rdmatop-exporter.service" 2>&1) \
    || fail "systemd-analyze verify: $out"
  [ -z "$out" ] || fail "systemd-analyze verify: $out"
  echo "ok: systemd unit verifies"
fi
# The Kubernetes manifests are valid YAML documents of the expected kinds.
if python3 -c 'import yaml' 2>/dev/null; then
  kinds=$(python3 -c 'import sys, yaml
print(" ".join(d["kind"] for d in yaml.safe_load_all(open(sys.argv[1])) if d))' \
    "$repo/deploy/kubernetes/rdmatop-exporter.yaml") || fail "kubernetes manifests do not parse"
  [ "$kinds" = "Namespace DaemonSet Service ServiceMonitor" ] || fail "kubernetes kinds: $kinds"
  echo "ok: kubernetes manifests parse ($kinds)"
fi

for host in "$fixtures"/*/; do
  start_exporter "$bin" "$host"
  get "$exporter_port" /metrics >>"$work/all.prom"
done
sed -n 's/^\([a-zA-Z_:][a-zA-Z0-9_:]*\)[{ ].*/\1/p' "$work/all.prom" | sort -u >"$work/emitted"

dashboard="$repo/deploy/grafana/rdmatop-dashboard.json"
grep '"expr":\|"query": "label_values' "$dashboard" \
  | grep -o '\brdma[a-z0-9_]*' | sort -u >"$work/queried"
[ -s "$work/queried" ] || fail "no metric names found in the dashboard"
missing=0
while read -r metric; do
  if grep -qx "$metric" "$work/emitted"; then continue; fi
  if grep -q "\`$metric\`" "$repo/docs/metrics.md" "$repo/docs/exporter.md"; then
    echo "note: $metric is not emitted on the fixture hosts but is documented"
    continue
  fi
  echo "FAIL: the dashboard queries $metric, which the exporter does not emit" >&2
  missing=1
done <"$work/queried"
[ "$missing" = 0 ] || exit 1
echo "ok: $(wc -l <"$work/queried") dashboard metrics are all emitted or documented"
echo "PASS"
