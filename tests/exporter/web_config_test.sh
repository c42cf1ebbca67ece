#!/usr/bin/env bash
# --web-config basic auth with a bcrypt hash made by an independent hasher (Python's crypt,
# libxcrypt): real curl gets 401 without credentials, with a wrong password and an unknown
# user, and the metrics with the right one (/ and /-/healthy stay open); a real Prometheus
# scrapes it with basic_auth. Bad web configs, tls_server_config included, are refused with a
# located, specific error.
# Usage: web_config_test.sh RDMATOP
source "$(dirname "$0")/lib.sh"
need curl
need python3
bin=$1

hash=$(python3 -W ignore -c 'import crypt; print(crypt.crypt("s3cret pw", crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1024)))')
case "$hash" in '$2b$'*) ;; *) echo "SKIP: python3 crypt has no bcrypt"; exit $SKIP ;; esac
cat >"$work/web.yml" <<YAML
basic_auth_users:
  prom: '$hash'
YAML

start_exporter "$bin" "$fixtures/mlx5" --interval 1 --web-config "$work/web.yml"
url="http://127.0.0.1:$exporter_port"
code() { curl -s -o /dev/null -w '%{http_code}' --max-time 10 "$@"; }
[ "$(code "$url/metrics")" = 401 ] || fail "no credentials: want 401"
[ "$(code -u prom:wrong "$url/metrics")" = 401 ] || fail "wrong password: want 401"
[ "$(code -u nobody:'s3cret pw' "$url/metrics")" = 401 ] || fail "unknown user: want 401"
for _ in 1 2; do  # the second time from the verified-credentials cache
  curl -sS --fail --max-time 10 -u 'prom:s3cret pw' "$url/metrics" >"$work/metrics.prom" ||
    fail "right password refused"
  grep -q '^rdma_bytes_total{' "$work/metrics.prom" || fail "no metrics with the right password"
done
[ "$(code -u prom:wrong "$url/metrics")" = 401 ] || fail "wrong password after a right one"
[ "$(code "$url/-/healthy")" = 200 ] || fail "/-/healthy must stay open"
echo "ok: basic auth with curl"

if command -v prometheus >/dev/null; then
  prom_port=$(free_port)
  cat >"$work/prometheus.yml" <<YAML
global: {scrape_interval: 1s}
scrape_configs:
  - job_name: rdmatop
    basic_auth: {username: prom, password: 's3cret pw'}
    static_configs: [{targets: ['127.0.0.1:$exporter_port']}]
YAML
  prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
    --web.listen-address="127.0.0.1:$prom_port" >"$work/prometheus.log" 2>&1 &
  pids+=($!)
  up=""
  for _ in $(seq 1 60); do
    curl -s --max-time 5 "http://127.0.0.1:$prom_port/api/v1/query?query=up" >"$work/up.json" || true
    if grep -q '"value":\[[0-9.]*,"1"\]' "$work/up.json"; then up=1; break; fi
    sleep 1
  done
  [ -n "$up" ] || { cat "$work/up.json" >&2; fail "Prometheus could not scrape with basic auth"; }
  echo "ok: Prometheus scrapes with basic auth"
else
  echo "note: prometheus not installed, the Prometheus scrape part was not run"
fi

# Refusals, each with a specific message.
bad() {
  printf '%s\n' "$2" >"$work/bad.yml"
  if timeout 10 "$bin" exporter --sysfs-root "$fixtures/mlx5/sys" --listen 127.0.0.1:0 \
      --web-config "$work/bad.yml" 2>"$work/bad.log"; then
    fail "$1: accepted"
  fi
  grep -qF "$3" "$work/bad.log" || fail "$1: want '$3' in: $(cat "$work/bad.log")"
}
bad "plain password" "basic_auth_users: {prom: secret}" "bad.yml:1:26: basic_auth_users: the password of 'prom' is not a bcrypt hash"
bad "unknown key" "http_server_config: {http2: false}" "unsupported key 'http_server_config'"
bad "TLS" "tls_server_config: {cert_file: c.pem, key_file: k.pem}" "tls_server_config is not supported"
bad "not yaml" "basic_auth_users: [unclosed" "bad.yml:"
rm -f "$work/bad.yml"
if timeout 10 "$bin" exporter --listen 127.0.0.1:0 --web-config "$work/bad.yml" 2>"$work/bad.log"; then
  fail "missing web config accepted"
fi
grep -qF "bad.yml" "$work/bad.log" || fail "missing file: unclear error: $(cat "$work/bad.log")"
echo "PASS"
