#!/usr/bin/env bash
# Regenerates the two rule files in deploy/ from the built-in pack, after a change to
# rules/builtin/*.yaml (test exporter.deploy fails while they are stale):
#   deploy/prometheus/rdmatop-alerts.yaml          `rdmatop rules export --format prometheus`
#   deploy/kubernetes/rdmatop-prometheusrule.yaml  the same groups and the fleet rules
#                                                  (rules/fleet/fleet.yaml) as a
#                                                  prometheus-operator PrometheusRule (spec.groups)
# Usage: scripts/gen-deploy-rules.sh [RDMATOP]   (default build/bin/rdmatop)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$here/build/bin/rdmatop}
"$bin" rules export --format prometheus -o "$here/deploy/prometheus/rdmatop-alerts.yaml"
"$here/scripts/prometheusrule.sh" "$here/deploy/prometheus/rdmatop-alerts.yaml" \
  "$here/rules/fleet/fleet.yaml" \
  >"$here/deploy/kubernetes/rdmatop-prometheusrule.yaml"
echo "regenerated deploy/prometheus/rdmatop-alerts.yaml and deploy/kubernetes/rdmatop-prometheusrule.yaml"
