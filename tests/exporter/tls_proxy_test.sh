#!/usr/bin/env bash
# The documented TLS recipe (docs/exporter.md, "TLS"): the exporter on loopback, stunnel
# terminating TLS in front of it with a certificate made by openssl, and a real Prometheus
# scraping it over https with the certificate as its CA. Also: plain HTTP to the TLS port gets no
# metrics, and curl refuses the endpoint without the CA.
# Usage: tls_proxy_test.sh RDMATOP
source "$(dirname "$0")/lib.sh"
need curl
need openssl
need stunnel4
need prometheus
bin=$1

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
  -subj /CN=localhost -addext subjectAltName=IP:127.0.0.1 \
  -keyout "$work/key.pem" -out "$work/cert.pem" 2>"$work/openssl.log" \
  || { cat "$work/openssl.log" >&2; fail "openssl could not make a certificate"; }

start_exporter "$bin" "$fixtures/mlx5" --interval 1
tls_port=$(free_port) || fail "no free port"
cat >"$work/stunnel.conf" <<EOF
foreground = yes
pid =
[rdmatop]
accept = 127.0.0.1:$tls_port
connect = 127.0.0.1:$exporter_port
cert = $work/cert.pem
key = $work/key.pem
EOF
stunnel4 "$work/stunnel.conf" >"$work/stunnel.log" 2>&1 &
pids+=($!)

https_get() {
  curl -sS --fail --max-time 5 --cacert "$work/cert.pem" "https://127.0.0.1:$tls_port/metrics" \
    >"$work/tls.prom" 2>/dev/null
}
wait_for "stunnel to accept" https_get
grep -q '^rdma_device_info{' "$work/tls.prom" || fail "no metrics over TLS"
echo "ok: curl reads /metrics over TLS through stunnel"
if curl -sS --max-time 5 "https://127.0.0.1:$tls_port/metrics" >/dev/null 2>&1; then
  fail "curl accepted the self-signed certificate without its CA"
fi
if curl -sS --max-time 5 "http://127.0.0.1:$tls_port/metrics" 2>/dev/null | grep -q rdma_; then
  fail "plain HTTP on the TLS port served metrics"
fi
echo "ok: no metrics without TLS or without the CA"

prom_port=$(free_port) || fail "no free port"
cat >"$work/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: rdmatop
    scheme: https
    tls_config:
      ca_file: $work/cert.pem
    static_configs: [{targets: ["127.0.0.1:$tls_port"]}]
EOF
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
  --web.listen-address="127.0.0.1:$prom_port" >"$work/prometheus.log" 2>&1 &
pids+=($!)
prom_pid=${pids[-1]}
scraped() { query 'up{job="rdmatop"} == 1' | grep -q '"result":\[{'; }
wait_for "Prometheus to scrape over https" scraped
query 'rdma_device_info{device="mlx5_0"}' | grep -q '"result":\[{' || fail "no series via https"
echo "ok: Prometheus scrapes the exporter over https (up == 1)"
echo "PASS"
