# shellcheck shell=bash
# Shared helpers of the exporter suite (sourced). Everything listens on 127.0.0.1 only, and
# every process a test starts is killed on every exit path (cleanup trap).
set -euo pipefail

SKIP=77
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck disable=SC2034  # used by the scripts that source this file
fixtures="$repo/tests/fixtures/hosts"
work=$(mktemp -d)
pids=()

cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }

# need COMMAND: skips the script when COMMAND is missing, naming what installs it (a benchmark
# sets install_hint to the install script's --bench, which installs its peers).
install_hint="scripts/install-deps.sh"
need() {
  command -v "$1" >/dev/null || { echo "SKIP: $1 is not installed ($install_hint)"; exit $SKIP; }
}

# start_rdmatop_exporter RDMATOP [flags...]: starts `rdmatop exporter FLAGS` on a free
# loopback port and sets $exporter_port; the exporter prints the port it bound.
start_rdmatop_exporter() {
  local bin=$1 log
  shift
  log=$(mktemp "$work/exporter.XXXXXX")
  "$bin" exporter --listen 127.0.0.1:0 "$@" 2>"$log" &
  pids+=($!)
  for _ in $(seq 1 100); do
    exporter_port=$(sed -n 's/.*listening on port \([0-9]*\).*/\1/p' "$log")
    [ -n "$exporter_port" ] && return 0
    kill -0 "${pids[-1]}" 2>/dev/null || { cat "$log" >&2; fail "exporter exited"; }
    sleep 0.1
  done
  cat "$log" >&2
  fail "exporter did not report its port"
}

# start_exporter RDMATOP HOST_DIR [flags...]: the exporter reading a fixture host
# (HOST_DIR/sys, HOST_DIR/ethtool).
start_exporter() {
  local bin=$1 host=$2
  shift 2
  start_rdmatop_exporter "$bin" --sysfs-root "$host/sys" --ethtool-dir "$host/ethtool" "$@"
}

# start_demo_exporter RDMATOP SCENARIO [flags...]: the exporter serving the fabric simulator
# playing SCENARIO (`rdmatop demo --list`).
start_demo_exporter() {
  local bin=$1 scenario=$2
  shift 2
  start_rdmatop_exporter "$bin" --demo "$scenario" "$@"
}

# start_prometheus [RULES_FILE...]: a real Prometheus on a free loopback port, scraping the
# exporter at $exporter_port (or every port in the array $prom_targets, if set) and evaluating
# the RULES_FILEs every second; sets $prom_port and $prom_pid. Its log is
# $work/prometheus.log.
start_prometheus() {
  local rules targets port
  prom_port=$(free_port) || fail "no free port"
  targets=""
  for port in "${prom_targets[@]:-$exporter_port}"; do
    targets+="${targets:+, }\"127.0.0.1:$port\""
  done
  {
    printf 'global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n'
    if [ $# -gt 0 ]; then
      printf 'rule_files:\n'
      for rules in "$@"; do printf '  - "%s"\n' "$rules"; done
    fi
    printf 'scrape_configs:\n  - job_name: rdmatop\n'
    printf '    static_configs: [{targets: [%s]}]\n' "$targets"
  } >"$work/prometheus.yml"
  prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
    --web.listen-address="127.0.0.1:$prom_port" >"$work/prometheus.log" 2>&1 &
  pids+=($!)
  prom_pid=${pids[-1]}
}

# query PROMQL: prints the JSON answer of the Prometheus started by start_prometheus (nothing
# while it is not up yet).
query() {
  curl -sS --max-time 5 -G "http://127.0.0.1:$prom_port/api/v1/query" \
    --data-urlencode "query=$1" 2>/dev/null || true
}

# wait_for WHAT CMD...: polls CMD once a second until it succeeds (bounded; no timing is
# asserted); fails early if the Prometheus of start_prometheus died.
wait_for() {
  local what=$1
  shift
  for _ in $(seq 1 120); do
    "$@" && return 0
    if [ -n "${prom_pid:-}" ] && ! kill -0 "$prom_pid" 2>/dev/null; then
      tail -20 "$work/prometheus.log" >&2
      fail "prometheus died"
    fi
    sleep 1
  done
  [ -n "${prom_pid:-}" ] && tail -20 "$work/prometheus.log" >&2
  fail "timed out waiting for $what"
}

# check_metrics FILE: `promtool check metrics` on an exposition, with no lint accepted: every
# name passes promtool's lint (bit-error counters say "bit", not "bits", which promtool would
# ask to be "bytes": docs/metrics.md).
check_metrics() {
  local out
  out=$(promtool check metrics <"$1" 2>&1) || { echo "promtool: $out" >&2; return 1; }
}

# free_port: a free loopback port for servers that cannot report a kernel-chosen one
# (Prometheus, node_exporter); tries a few random ones. Below the kernel's ephemeral range
# (net.ipv4.ip_local_port_range, ip-sysctl.rst), where no outgoing connection of a test running
# beside this one takes a local port, and only one that binds now: a port nobody listens on can
# still be bound by a connection, which a connect() probe does not see.
free_port() {
  local p low
  read -r low _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || low=32768
  for p in $(shuf -i 10000-$((low - 1)) -n 20); do
    if python3 -c 'import socket,sys; socket.socket().bind(("127.0.0.1", int(sys.argv[1])))' \
      "$p" 2>/dev/null; then
      echo "$p"
      return 0
    fi
  done
  return 1
}

# get PORT PATH: prints the body; fails on a non-2xx status.
get() { curl -sS --fail --max-time 10 "http://127.0.0.1:$1$2"; }
