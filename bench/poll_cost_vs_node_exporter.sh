#!/usr/bin/env bash
# The poll cost of an N-port host (issues #7, #18): CPU of `rdmatop exporter` against
# node_exporter on the same synthetic sysfs tree (bench/make_synthetic_tree.py: N copies of the
# mlx5 fixture's busy port), both measured in the same time window, as user + system CPU of each
# process (/proc/PID/stat), so a loaded machine slows both without inflating either's CPU.
# A poll is one rdmatop collection (read sysfs + ethtool dumps, normalize, rules, report; its
# scrapes serve that result), and one node_exporter scrape (node_exporter reads sysfs on each
# scrape). rdmatop is run twice: with the built-in rules, and with --no-builtin-rules to show
# what reading and normalizing alone cost.
# Then, with the CPU window closed, `strace -c -f` is attached to the rules-less rdmatop for
# STRACE_SECONDS and the system calls it made are printed per collection (openat, read, pread64,
# getdents64, close, all), next to node_exporter's per scrape.
# Usage: bench/poll_cost_vs_node_exporter.sh BUILD_DIR [PORTS] [SECONDS] [INTERVAL]
#   INTERVAL: rdmatop's --interval and the pause between node_exporter scrapes; "0.2" (the
#   default) collects 5 times a second and scrapes node_exporter back to back.
# Environment: NE_COLLECTORS (default "infiniband netclass"), STRACE_SECONDS (default 5, 0 = no
#   strace phase), BASE_BUILD (another build directory, say of main before a change: its two
#   exporters run in the same window, and the CPU per poll of this build over the base's is
#   printed; runs of the two builds one after the other differ by more on a VM whose speed
#   changes between runs), SCRAPE_ENCODING (default "gzip": the scrapes in the window ask for
#   `Accept-Encoding: gzip`, as Prometheus does by default, so each exporter's compression of
#   its page is in its CPU; "identity" leaves it out), GID_SLOTS (default 256, a ConnectX
#   port's real table; the figures before session 30 had 8: bench/README.md, "GID tables"),
#   ETHTOOL_CHANNELS (default 2: each netdev's channels in its `ethtool -S` dump), ABLATE
#   (default none: parts of the tree, space-separated, each left out of a copy of the tree that
#   one more rules-less exporter of this build reads in the same window; its CPU per poll over
#   the rules-less exporter's on the whole tree says what that part costs a collection, which
#   a profile on a VM without hardware counters does not: pma-counters (ports' counters/),
#   hw-counters (hw_counters/ of ports and devices), netdev-statistics (class/net/*/statistics/),
#   ethtool (every netdev's `ethtool -S` dump cut to one counter; -i and -a kept)).
# shellcheck source=../tests/exporter/lib.sh
source "$(dirname "$0")/../tests/exporter/lib.sh"
install_hint="scripts/install-deps.sh --bench"
need curl
need python3
need prometheus-node-exporter
build=${1:?build dir}
ports=${2:-64}
seconds=${3:-30}
interval=${4:-0.2}
ne_collectors=${NE_COLLECTORS:-infiniband netclass}
strace_seconds=${STRACE_SECONDS:-5}
encoding=${SCRAPE_ENCODING:-gzip}
gid_slots=${GID_SLOTS:-256}
channels=${ETHTOOL_CHANNELS:-2}
tree="$work/host$ports"
python3 "$repo/bench/make_synthetic_tree.py" "$tree" "$ports" "$gid_slots" "$channels" ||
  fail "tree generator"
hz=$(getconf CLK_TCK)

# cpu_ticks PID: user + system CPU of the process in clock ticks (proc(5): utime and stime,
# fields 14 and 15; the fields are counted after the parenthesised command name).
cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }
collections() { get "$1" /metrics | awk '/^rdmatop_collections_total / { print $2 }'; }
# scrape PORT: one scrape as the window makes them (SCRAPE_ENCODING), the body discarded.
scrape() {
  curl -sS --fail -o /dev/null -H "Accept-Encoding: $encoding" "http://127.0.0.1:$1/metrics"
}
samples() { get "$1" /metrics | grep -vc '^#'; }

# Each rdmatop exporter is a role: full (built-in rules), lean (--no-builtin-rules), and the
# same two of BASE_BUILD. Per role: its port, PID, and collections and CPU ticks at the window's
# start, then its polls and CPU milliseconds per poll.
declare -A port pid c0 t0 polls ms
roles=()
# start_rdmatop ROLE BINARY TREE [ARGS...]
start_rdmatop() {
  local role=$1 binary=$2 host=$3
  shift 3
  start_exporter "$binary" "$host" --interval "$interval" "$@"
  port[$role]=$exporter_port pid[$role]=${pids[-1]}
  roles+=("$role")
}
start_rdmatop full "$build/bin/rdmatop" "$tree"
start_rdmatop lean "$build/bin/rdmatop" "$tree" --no-builtin-rules
base_build=${BASE_BUILD:-}
if [ -n "$base_build" ]; then
  start_rdmatop base_full "$base_build/bin/rdmatop" "$tree"
  start_rdmatop base_lean "$base_build/bin/rdmatop" "$tree" --no-builtin-rules
fi
# tree_without PART: a copy of the tree without PART (see ABLATE); prints its path. The part's
# directories stay, emptied, and each `ethtool -S` dump keeps one counter: a directory or dump
# gone takes other paths every tick (it is looked for again, its owner looked up to tell a
# vanished device from a missing file), whose cost would be charged against the part.
tree_without() {
  local copy="$work/without-$1" pattern=()
  cp -a "$tree" "$copy" || fail "copying the tree"
  case $1 in
    pma-counters) pattern=(-path '*/ports/*/counters/*') ;;
    hw-counters) pattern=(-path '*/hw_counters/*') ;;
    netdev-statistics) pattern=(-path '*/net/*/statistics/*') ;;
    ethtool)
      for dump in "$copy"/ethtool/*.txt; do
        printf 'NIC statistics:\n     rx_packets: 0\n' >"$dump"
      done ;;
    *) fail "ABLATE: no part named $1 (pma-counters hw-counters netdev-statistics ethtool)" ;;
  esac
  [ ${#pattern[@]} = 0 ] || find "$copy/sys/devices" -type f "${pattern[@]}" -delete
  echo "$copy"
}
read -ra ablated <<<"${ABLATE:-}"
for part in "${ablated[@]}"; do
  start_rdmatop "without_$part" "$build/bin/rdmatop" "$(tree_without "$part")" --no-builtin-rules
done
ne_port=$(free_port) || fail "no free port"
ne_flags=()
for c in $ne_collectors; do ne_flags+=("--collector.$c"); done
prometheus-node-exporter --path.sysfs="$tree/sys" --collector.disable-defaults \
  "${ne_flags[@]}" --web.listen-address="127.0.0.1:$ne_port" \
  >"$work/node_exporter.log" 2>&1 &
pids+=($!)
ne_pid=$!
for _ in $(seq 1 100); do
  get "$ne_port" /metrics >/dev/null 2>&1 && break
  sleep 0.1
done
get "$ne_port" /metrics >/dev/null || { cat "$work/node_exporter.log" >&2; fail "node_exporter"; }
sleep 2  # past the first collections and a cold page cache

for role in "${roles[@]}"; do
  c0[$role]=$(collections "${port[$role]}") t0[$role]=$(cpu_ticks "${pid[$role]}")
done
ne_t0=$(cpu_ticks "$ne_pid")
ne_scrapes=0
pause=0
[ "$interval" != "0.2" ] && pause=$interval
end=$((SECONDS + seconds))
while [ "$SECONDS" -lt "$end" ]; do
  scrape "$ne_port" || fail "node_exporter scrape"
  ne_scrapes=$((ne_scrapes + 1))
  if [ "$pause" != 0 ]; then
    # Prometheus scrapes all at the interval: rdmatop serves its latest collection.
    for role in "${roles[@]}"; do
      scrape "${port[$role]}" || fail "rdmatop scrape ($role)"
    done
    sleep "$pause"
  fi
done
ne_t1=$(cpu_ticks "$ne_pid")
# per_poll TICKS POLLS: CPU milliseconds per poll.
per_poll() { awk -v t="$1" -v n="$2" -v hz="$hz" 'BEGIN { printf "%.2f", t * 1000 / hz / n }'; }
for role in "${roles[@]}"; do
  ticks=$(($(cpu_ticks "${pid[$role]}") - t0[$role]))
  polls[$role]=$(($(collections "${port[$role]}") - c0[$role]))
  ms[$role]=$(per_poll "$ticks" "${polls[$role]}")
done
ne_ms=$(per_poll $((ne_t1 - ne_t0)) "$ne_scrapes")
echo "synthetic host: $ports mlx5 ports ($(find "$tree" -type f | wc -l) files)," \
  "${seconds} s window, interval $interval s, scrapes with Accept-Encoding: $encoding," \
  "CPU (user + system) of each process, load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf 'rdmatop exporter:                    %5d polls, %8s ms CPU per poll, %6s samples served\n' \
  "${polls[full]}" "${ms[full]}" "$(samples "${port[full]}")"
printf 'rdmatop exporter --no-builtin-rules: %5d polls, %8s ms CPU per poll, %6s samples served\n' \
  "${polls[lean]}" "${ms[lean]}" "$(samples "${port[lean]}")"
printf 'node_exporter %-22s %5d polls, %8s ms CPU per poll, %6s samples served\n' \
  "$ne_collectors:" "$ne_scrapes" "$ne_ms" "$(samples "$ne_port")"
awk -v a="${ms[full]}" -v b="${ms[lean]}" -v c="$ne_ms" 'BEGIN {
  printf "CPU per poll ratio rdmatop/node_exporter: %.2f (with rules), %.2f (without)\n",
    a / c, b / c }'
if [ -n "$base_build" ]; then
  printf 'base %s: %8s ms CPU per poll (with rules), %8s ms (without)\n' "$base_build" \
    "${ms[base_full]}" "${ms[base_lean]}"
  awk -v a="${ms[full]}" -v b="${ms[lean]}" -v c="${ms[base_full]}" -v d="${ms[base_lean]}" \
    -v e="$ne_ms" 'BEGIN {
    printf "CPU per poll, this build / base: %.3f (with rules), %.3f (without); base/node_exporter: %.2f, %.2f\n",
      a / c, b / d, c / e, d / e }'
fi
for part in "${ablated[@]}"; do
  awk -v p="$part" -v a="${ms[without_$part]}" -v b="${ms[lean]}" 'BEGIN {
    printf "without %s (--no-builtin-rules): %.2f ms CPU per poll, %.3f of the whole tree'"'"'s: the part costs %.2f ms\n",
      p, a, a / b, b - a }'
done

[ "$strace_seconds" = 0 ] && exit 0
command -v strace >/dev/null || { echo "no strace: system calls not counted"; exit 0; }
# strace_counts PID SECONDS OUT: `strace -c -f` attached for SECONDS (its summary in OUT).
strace_counts() {
  timeout -s INT "$2" strace -c -f -q -o "$3" -p "$1" 2>/dev/null || true
}
# calls FILE SYSCALL: the number of calls of SYSCALL in an strace -c summary ("total" for all).
calls() { awk -v s="$2" '$NF == s { print ($4 ~ /^[0-9]+$/) ? $4 : $3; f = 1 } END { if (!f) print 0 }' "$1"; }
before=$(collections "${port[lean]}")
strace_counts "${pid[lean]}" "$strace_seconds" "$work/strace.rdmatop"
n=$(($(collections "${port[lean]}") - before))
( end=$((SECONDS + strace_seconds))
  while [ "$SECONDS" -lt "$end" ]; do
    scrape "$ne_port"
    echo x
    [ "$pause" != 0 ] && sleep "$pause"
  done >"$work/ne_scrapes" ) &
scraper=$!
strace_counts "$ne_pid" "$strace_seconds" "$work/strace.ne"
wait "$scraper"
m=$(wc -l <"$work/ne_scrapes")
per() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", b ? a / b : 0 }'; }
echo "system calls (strace -c -f, ${strace_seconds} s): rdmatop --no-builtin-rules per collection" \
  "($n collections, not scraped meanwhile), node_exporter per scrape, which is its collection" \
  "($m scrapes)"
for s in openat read pread64 getdents64 close total; do
  printf '  %-10s rdmatop %7s   node_exporter %7s\n' "$s" \
    "$(per "$(calls "$work/strace.rdmatop" "$s")" "$n")" "$(per "$(calls "$work/strace.ne" "$s")" "$m")"
done
