#!/usr/bin/env bash
# Batch mode on the mlx5 fixture host, diffed against tests/tui/golden/mlx5-batch.txt (the
# host name and clock are masked). Without a terminal and without -n, rdmatop prints exactly one frame, the
# first frame of the same output. Update after a reviewed change with RDMATOP_UPDATE_GOLDEN=1.
#   batch_test.sh RDMATOP_BINARY SOURCE_DIR
set -u
binary=$1
cd "$2" || exit 1
golden=tests/tui/golden/mlx5-batch.txt
args=(--sysfs-root tests/fixtures/hosts/mlx5/sys --ethtool-dir tests/fixtures/hosts/mlx5/ethtool
      --no-builtin-rules --rules tests/tui/down_port_rule.yaml --interval 0.1)
# The host name and the clock are this machine's, not the fixture's.
mask() {
  sed -E -e '/^rdmatop /s/  host [^ ]+  /  host <HOST>  /' \
    -e 's/[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} UTC/<TIME>/'
}
out=$(mktemp)
one=$(mktemp)
trap 'rm -f "$out" "$one"' EXIT

"$binary" "${args[@]}" -n 2 > "$out" || { echo "FAIL: rdmatop -n 2 exited $?"; exit 1; }
if [ "${RDMATOP_UPDATE_GOLDEN:-}" = 1 ]; then
  mask < "$out" > "$golden"
  echo "updated $golden"
fi
mask < "$out" | diff -u "$golden" - || { echo "FAIL: batch output differs from $golden"; exit 1; }

# stdout is a pipe here, not a terminal: one frame.
"$binary" "${args[@]}" | cat > "$one" || { echo "FAIL: piped rdmatop failed"; exit 1; }
lines=$(wc -l < "$one")
[ "$lines" -gt 5 ] || { echo "FAIL: piped output too short"; cat "$one"; exit 1; }
diff -u <(head -n "$lines" "$golden") <(mask < "$one") ||
  { echo "FAIL: piped output is not the first frame"; exit 1; }
[ "$(grep -c '^rdmatop ' "$one")" = 1 ] || { echo "FAIL: piped output is not one frame"; exit 1; }
echo "PASS"
