#!/usr/bin/env bash
# `rdmatop exporter --listen`: every address form it accepts serves, and every bind failure
# says what is wrong (issue #20: civetweb alone reports them all as "null context"). Real
# sockets on loopback: a port another exporter holds, a privileged port as an unprivileged
# user, an address this host does not have, malformed addresses, :PORT, and [::1]:PORT and
# [::]:PORT (served through the exporter's IPv6 relay when civetweb has no IPv6).
# Usage: listen_test.sh RDMATOP
source "$(dirname "$0")/lib.sh"
need curl
bin=$(readlink -f "$1")
host="$fixtures/mlx5"
src=(--sysfs-root "$host/sys" --ethtool-dir "$host/ethtool" --interval 1)

# refused WHAT LISTEN PATTERN [RUNNER...]: the exporter exits non-zero at once with a message
# matching PATTERN, and never civetweb's opaque one.
refused() {
  local what=$1 listen=$2 pattern=$3 rc=0
  shift 3
  timeout 20 "$@" "$bin" exporter "${src[@]}" --listen "$listen" >"$work/out" 2>"$work/err" || rc=$?
  [ "$rc" != 0 ] && [ "$rc" != 124 ] || fail "$what: --listen $listen was not refused (exit $rc)"
  ! grep -q 'null context' "$work/err" || fail "$what: the opaque civetweb message: $(cat "$work/err")"
  grep -q -- "$pattern" "$work/err" || fail "$what: want /$pattern/, got: $(cat "$work/err")"
  echo "ok: $what: $(cat "$work/err")"
}

# serves LISTEN URL_HOST: the exporter started with --listen LISTEN (port 0) answers
# /-/healthy on URL_HOST at the port it reports.
serves() {
  local listen=$1 url_host=$2 log port=
  log=$(mktemp "$work/exporter.XXXXXX")
  "$bin" exporter "${src[@]}" --listen "$listen" 2>"$log" &
  pids+=($!)
  for _ in $(seq 1 100); do
    port=$(sed -n 's/.*listening on port \([0-9]*\).*/\1/p' "$log")
    [ -n "$port" ] && break
    kill -0 "${pids[-1]}" 2>/dev/null || { cat "$log" >&2; return 1; }
    sleep 0.1
  done
  [ -n "$port" ] || { cat "$log" >&2; fail "--listen $listen: no port reported"; }
  [ "$(curl -sS -g --max-time 10 "http://$url_host:$port/-/healthy")" = "Healthy." ] \
    || fail "--listen $listen: /-/healthy on $url_host:$port"
  echo "ok: --listen $listen serves on $url_host:$port"
  served_port=$port
}

# PORT in use: a second exporter on the port the first one holds.
start_exporter "$bin" "$host"
refused "port in use" "127.0.0.1:$exporter_port" "address already in use"
grep -q "sport = :$exporter_port" "$work/err" || fail "in use: no hint at ss"

# :PORT (all IPv4 addresses, as Go exporters write it) and PORT.
serves ":0" 127.0.0.1
serves "0" 127.0.0.1
serves "localhost:0" 127.0.0.1

# Malformed addresses and ports.
refused "port out of range" "127.0.0.1:99999" "bad address.*not a port"
refused "host name" "metrics.example:9879" "bad address.*not a numeric IPv4 address"
refused "IPv6 without brackets" "::1:9879" "bad address.*needs brackets"
refused "empty port" "127.0.0.1:" "bad address.*not a port"
refused "not an IPv6 address" "[::zz]:9879" "bad address.*not a numeric IPv6 address"

# An address that is not this host's (TEST-NET-2, RFC 5737, is on no interface here).
if ip -brief address 2>/dev/null | grep -q '198\.51\.100\.'; then
  echo "note: 198.51.100.0/24 is configured here; address-not-available check skipped"
else
  refused "not a local address" "198.51.100.7:9879" "address not available"
fi

# A privileged port as an unprivileged user (ip-sysctl.rst: ip_unprivileged_port_start).
start=$(cat /proc/sys/net/ipv4/ip_unprivileged_port_start 2>/dev/null || echo 1024)
if [ "$start" -le 1 ]; then
  echo "note: net.ipv4.ip_unprivileged_port_start=$start: no privileged ports; check skipped"
elif [ "$(id -u)" = 0 ]; then
  command -v setpriv >/dev/null || fail "setpriv (util-linux) not found"
  # As nobody, with no capabilities (setpriv(1)), from a directory nobody may read.
  (cd / && refused "privileged port" "127.0.0.1:$((start - 1))" "permission denied.*CAP_NET_BIND_SERVICE" \
    setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all)
else
  refused "privileged port" "127.0.0.1:$((start - 1))" "permission denied.*CAP_NET_BIND_SERVICE"
fi

# IPv6: [::1]:PORT and [::]:PORT serve (through the exporter's relay to civetweb on loopback
# when civetweb has no IPv6, as Debian 12's), /metrics included; [::] is dual-stack unless
# net.ipv6.bindv6only=1; an IPv6 port in use is reported like an IPv4 one.
if ! ip -6 -brief address show dev lo 2>/dev/null | grep -q '::1/128'; then
  echo "note: no ::1 on lo (IPv6 disabled here); IPv6 checks skipped"
else
  serves "[::1]:0" "[::1]"
  v6_port=$served_port
  curl -sS -g --fail --max-time 10 "http://[::1]:$v6_port/metrics" >"$work/v6.prom" \
    || fail "[::1]: /metrics"
  grep -q '^rdma_bytes_total{' "$work/v6.prom" || fail "[::1]: /metrics has no rdma_bytes_total"
  # Ten scrapes at once through the relay: each gets the whole page.
  for i in $(seq 1 10); do
    curl -sS -g --fail --max-time 20 -o "$work/v6.$i.prom" "http://[::1]:$v6_port/metrics" &
  done
  wait_status=0
  for job in $(jobs -p); do
    case " ${pids[*]} " in *" $job "*) continue ;; esac
    wait "$job" || wait_status=1
  done
  [ "$wait_status" = 0 ] || fail "[::1]: concurrent scrapes failed"
  for i in $(seq 1 10); do
    grep -q '^rdmatop_build_info' "$work/v6.$i.prom" || fail "[::1]: scrape $i truncated"
  done
  echo "ok: [::1]:$v6_port serves /metrics, ten scrapes at once"
  refused "IPv6 port in use" "[::1]:$v6_port" "address already in use"
  serves "[::]:0" "[::1]"
  if [ "$(cat /proc/sys/net/ipv6/bindv6only 2>/dev/null || echo 0)" = 0 ]; then
    [ "$(curl -sS --max-time 10 "http://127.0.0.1:$served_port/-/healthy")" = "Healthy." ] \
      || fail "[::]:$served_port does not take IPv4 connections (bindv6only=0)"
    echo "ok: [::]:$served_port takes IPv4 connections too"
  fi
fi
echo "PASS"
