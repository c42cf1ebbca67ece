#!/usr/bin/env bash
# The /metrics exposition of the real exporter on every fixture host, against a golden file
# (tests/exporter/golden/<host>.prom), like node_exporter's end-to-end test: every family, its
# HELP and TYPE, every label set and every value that does not depend on the clock or the
# process. Masked to "X": the exporter's own timings, timestamps and process_*/exposer_* values;
# the version label. One collection only (--interval 3600, the fast path off), so the findings'
# states do not depend on how fast the machine is. Each golden also passes promtool.
# RDMATOP_UPDATE_GOLDEN=1 rewrites the goldens (review the diff), as for the report goldens.
# Usage: metrics_golden_test.sh RDMATOP
source "$(dirname "$0")/lib.sh"
need curl
need promtool
bin=$1
golden_dir="$repo/tests/exporter/golden"

mask() {
  sed -E \
    -e 's/^((exposer|process)_[a-z_]*(\{[^}]*\})?) .*/\1 X/' \
    -e 's/^(rdmatop_(collection|source)_duration_seconds(\{[^}]*\})?) .*/\1 X/' \
    -e 's/^([a-z_]*_timestamp_seconds(\{[^}]*\})?) .*/\1 X/' \
    -e 's/^(rdmatop_build_info\{.*version=")[^"]*(".*)/\1VERSION\2/'
}

status=0
for host in "$fixtures"/*/; do
  name=$(basename "$host")
  start_exporter "$bin" "$host" --interval 3600 --fast-interval 0
  get "$exporter_port" /metrics >"$work/$name.prom"
  kill "${pids[-1]}" 2>/dev/null || true
  check_metrics "$work/$name.prom" || fail "$name: promtool check metrics"
  mask <"$work/$name.prom" >"$work/$name.masked"
  if [ "${RDMATOP_UPDATE_GOLDEN:-}" = 1 ]; then
    cp "$work/$name.masked" "$golden_dir/$name.prom"
    echo "updated: tests/exporter/golden/$name.prom"
  elif ! diff -u "$golden_dir/$name.prom" "$work/$name.masked" >"$work/$name.diff"; then
    echo "FAIL: $name: /metrics differs from tests/exporter/golden/$name.prom:" >&2
    head -60 "$work/$name.diff" >&2
    status=1
  else
    echo "ok: $name ($(grep -vc '^#' "$work/$name.masked") samples)"
  fi
done
exit $status
