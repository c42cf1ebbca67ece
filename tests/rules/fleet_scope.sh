#!/bin/sh
# Fleet-scope test (issue #20): the exported pack (`rdmatop rules export`) and the fleet rules
# (rules/fleet/fleet.yaml) have no join or
# aggregation that drops `instance` outside rules labelled scope: fleet, and the checker does
# catch the known-bad forms of fleet_scope_bad_rules.yaml (5 findings, 2 allowed rules).
# Usage: fleet_scope.sh RDMATOP CHECKER OUTDIR
set -u
cli=$1 checker=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
"$cli" rules export --format prometheus -o "$out/rdmatop-rules.yaml" || exit 1
"$checker" "$out/rdmatop-rules.yaml" "$here/../../rules/fleet/fleet.yaml" \
  || { echo "FAIL: the exported pack or the fleet rules drop instance without scope: fleet"; exit 1; }
bad=$("$checker" "$here/fleet_scope_bad_rules.yaml")
rc=$?
echo "$bad"
[ "$rc" = 1 ] || { echo "FAIL: the checker passed the known-bad file (exit $rc)"; exit 1; }
for rule in JoinWithoutInstance IgnoringInstance ByWithoutInstance WithoutInstance NoGrouping; do
  echo "$bad" | grep -q ": $rule: " || { echo "FAIL: $rule not reported"; exit 1; }
done
echo "$bad" | grep -q "FleetRuleSaysSo\|ConstantThreshold" && { echo "FAIL: an allowed rule was reported"; exit 1; }
echo "$bad" | grep -q "^7 rules, 5 fleet-scope findings$" || { echo "FAIL: unexpected count"; exit 1; }
echo "PASS"
