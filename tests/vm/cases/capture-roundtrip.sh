#!/bin/bash
# On the host: `rdmatop capture` on rxe inside the VM (with `report --json` taken there right
# after), the bundle copied out through the run's shared work dir, then `report --json --capture`
# on it here, outside the VM; capture-roundtrip.py compares the two (docs/capture.md).
# Usage: capture-roundtrip.sh RXE_RUN RDMATOP_BINARY
set -euo pipefail
rxe_run="${1:?usage: capture-roundtrip.sh RXE_RUN RDMATOP_BINARY}"
rdmatop="${2:?usage: capture-roundtrip.sh RXE_RUN RDMATOP_BINARY}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# rxe-run makes its work dir under TMPDIR and keeps it with --keep: the bundle is left there.
rc=0
TMPDIR="$tmp" "$rxe_run" --keep --timeout 240 -- bash -c '
  set -e
  "$1" capture -o "$RXE_VM_HOST_WORKDIR/bundle.tar.gz" --seconds 3
  "$1" report --json --interval 0 >"$RXE_VM_HOST_WORKDIR/inside.json" || [[ $? -le 2 ]]' _ \
  "$rdmatop" || rc=$?
[[ $rc -eq 0 ]] || exit "$rc"  # 77: skipped (no qemu), as every VM case
work=$(echo "$tmp"/rxe-vm-run.*)
[[ -s "$work/bundle.tar.gz" && -s "$work/inside.json" ]] || { echo "FAIL: no bundle"; exit 1; }
"$rdmatop" report --json --capture "$work/bundle.tar.gz" >"$work/outside.json" || [[ $? -le 2 ]]
python3 "$here/capture-roundtrip.py" "$work/inside.json" "$work/outside.json"
