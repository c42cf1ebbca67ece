#!/usr/bin/env bash
# The poll cost of a 64-port host (issue #7): CPU per poll of `rdmatop exporter` against
# node_exporter's infiniband + netclass collectors on the same synthetic sysfs tree
# (bench/make_synthetic_tree.py: N copies of the mlx5 fixture's busy port), both measured in
# the same time window, as user + system CPU of each process (/proc/PID/stat), so a loaded
# machine slows both without inflating either's CPU.
# A poll is one rdmatop collection (read sysfs + ethtool dumps, normalize, rules, report; its
# scrapes serve that result), and one node_exporter scrape (node_exporter reads sysfs on each
# scrape). rdmatop is run twice: with the built-in rules, and with --no-builtin-rules to show
# what reading and normalizing alone cost.
# Usage: bench/poll_cost_vs_node_exporter.sh BUILD_DIR [PORTS] [SECONDS]
# shellcheck source=../tests/exporter/lib.sh
source "$(dirname "$0")/../tests/exporter/lib.sh"
need curl
need python3
need prometheus-node-exporter
build=${1:?build dir}
ports=${2:-64}
seconds=${3:-30}
tree="$work/host$ports"
python3 "$repo/bench/make_synthetic_tree.py" "$tree" "$ports" || fail "tree generator"
hz=$(getconf CLK_TCK)

# cpu_ticks PID: user + system CPU of the process in clock ticks (proc(5): utime and stime,
# fields 14 and 15; the fields are counted after the parenthesised command name).
cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }
collections() { get "$1" /metrics | awk '/^rdmatop_collections_total / { print $2 }'; }
samples() { get "$1" /metrics | grep -vc '^#'; }

start_exporter "$build/bin/rdmatop" "$tree" --interval 0.2
full_port=$exporter_port full_pid=${pids[-1]}
start_exporter "$build/bin/rdmatop" "$tree" --interval 0.2 --no-builtin-rules
lean_port=$exporter_port lean_pid=${pids[-1]}
ne_port=$(free_port) || fail "no free port"
prometheus-node-exporter --path.sysfs="$tree/sys" --collector.disable-defaults \
  --collector.infiniband --collector.netclass --web.listen-address="127.0.0.1:$ne_port" \
  >"$work/node_exporter.log" 2>&1 &
pids+=($!)
ne_pid=$!
for _ in $(seq 1 100); do
  get "$ne_port" /metrics >/dev/null 2>&1 && break
  sleep 0.1
done
get "$ne_port" /metrics >/dev/null || { cat "$work/node_exporter.log" >&2; fail "node_exporter"; }
sleep 2  # past the first collections and a cold page cache

full_c0=$(collections "$full_port") full_t0=$(cpu_ticks "$full_pid")
lean_c0=$(collections "$lean_port") lean_t0=$(cpu_ticks "$lean_pid")
ne_t0=$(cpu_ticks "$ne_pid")
ne_scrapes=0
end=$((SECONDS + seconds))
while [ "$SECONDS" -lt "$end" ]; do
  curl -sS --fail -o /dev/null "http://127.0.0.1:$ne_port/metrics" || fail "node_exporter scrape"
  ne_scrapes=$((ne_scrapes + 1))
done
ne_t1=$(cpu_ticks "$ne_pid")
full_t1=$(cpu_ticks "$full_pid") full_c1=$(collections "$full_port")
lean_t1=$(cpu_ticks "$lean_pid") lean_c1=$(collections "$lean_port")

# per_poll TICKS POLLS: CPU milliseconds per poll.
per_poll() { awk -v t="$1" -v n="$2" -v hz="$hz" 'BEGIN { printf "%.2f", t * 1000 / hz / n }'; }
full_ms=$(per_poll $((full_t1 - full_t0)) $((full_c1 - full_c0)))
lean_ms=$(per_poll $((lean_t1 - lean_t0)) $((lean_c1 - lean_c0)))
ne_ms=$(per_poll $((ne_t1 - ne_t0)) "$ne_scrapes")
echo "synthetic host: $ports mlx5 ports ($(find "$tree" -type f | wc -l) files)," \
  "${seconds} s window, CPU (user + system) of each process," \
  "load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf 'rdmatop exporter:                    %5d polls, %8s ms CPU per poll, %6s samples served\n' \
  $((full_c1 - full_c0)) "$full_ms" "$(samples "$full_port")"
printf 'rdmatop exporter --no-builtin-rules: %5d polls, %8s ms CPU per poll, %6s samples served\n' \
  $((lean_c1 - lean_c0)) "$lean_ms" "$(samples "$lean_port")"
printf 'node_exporter infiniband + netclass: %5d polls, %8s ms CPU per poll, %6s samples served\n' \
  "$ne_scrapes" "$ne_ms" "$(samples "$ne_port")"
awk -v a="$full_ms" -v b="$lean_ms" -v c="$ne_ms" 'BEGIN {
  printf "CPU per poll ratio rdmatop/node_exporter: %.2f (with rules), %.2f (without)\n",
    a / c, b / c }'
