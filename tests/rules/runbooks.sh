#!/bin/sh
# Runbooks (issue #20): every alert of the exported pack and of the fleet rules has a runbook
# page in docs/runbooks/ and a runbook_url annotation naming it, --runbook-base moves the URLs,
# and the pages are what scripts/gen-runbooks.py generates from the rules and rules/runbooks.yaml
# today (regenerated into OUTDIR and compared).
# Usage: runbooks.sh RDMATOP OUTDIR
set -u
cli=$1
out=$2
repo=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$out" && mkdir -p "$out/pages" || exit 1
python3 "$repo/scripts/gen-runbooks.py" "$out/pages" || { echo "FAIL: gen-runbooks.py"; exit 1; }
if ! diff -ru "$repo/docs/runbooks" "$out/pages"; then
  echo "FAIL: docs/runbooks/ is stale; regenerate it with: scripts/gen-runbooks.py"
  exit 1
fi
"$cli" rules export --format prometheus -o "$out/default.yaml" || exit 1
"$cli" rules export --format prometheus --runbook-base https://runbooks.example/rdmatop/ \
  -o "$out/based.yaml" || exit 1
# check.py FILE BASE: every alert's runbook_url is BASE<alert>.md and docs/runbooks/<alert>.md exists.
cat >"$out/check.py" <<'PY'
import os, sys, yaml
path, base, pages = sys.argv[1], sys.argv[2], sys.argv[3]
alerts = [r for g in yaml.safe_load(open(path))["groups"] for r in g["rules"] if "alert" in r]
bad = []
for r in alerts:
    url = r.get("annotations", {}).get("runbook_url")
    if url != base + r["alert"] + ".md":
        bad.append(f"{path}: {r['alert']}: runbook_url {url!r}, expected {base + r['alert'] + '.md'!r}")
    if not os.path.isfile(os.path.join(pages, r["alert"] + ".md")):
        bad.append(f"{path}: {r['alert']}: no page docs/runbooks/{r['alert']}.md")
print("\n".join(bad) if bad else f"ok: {len(alerts)} alerts of {os.path.basename(path)} have a runbook page and runbook_url")
sys.exit(1 if bad or not alerts else 0)
PY
default=file:///usr/share/doc/rdmatop/runbooks/
python3 "$out/check.py" "$out/default.yaml" "$default" "$repo/docs/runbooks" || exit 1
python3 "$out/check.py" "$out/based.yaml" https://runbooks.example/rdmatop/ "$repo/docs/runbooks" || exit 1
python3 "$out/check.py" "$repo/rules/fleet/fleet.yaml" "$default" "$repo/docs/runbooks" || exit 1
# An alert from a --rules file has no page, so it gets no runbook_url.
cat >"$out/user.yaml" <<'YAML'
groups:
  - name: user
    rules:
      - alert: UserAlert
        expr: vector(1)
YAML
"$cli" rules export --format prometheus --rules "$out/user.yaml" -o "$out/user-export.yaml" || exit 1
if grep -q 'runbooks/UserAlert.md' "$out/user-export.yaml"; then
  echo "FAIL: an alert from a --rules file got a runbook_url"
  exit 1
fi
echo "ok: runbook pages are fresh"
