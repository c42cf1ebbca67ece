#!/usr/bin/env bash
# #22 item 1 and 6, against the real exporter binary on loopback: idle sockets, half-sent
# requests and a 1 GB Content-Length do not make /metrics or /-/healthy unreachable (civetweb's
# two workers were held for 30 s by two idle sockets); a request trickled one byte at a time
# is closed at the request deadline; with basic auth, a wrong password flood from one address is
# answered 429 without bcrypt while the right credentials keep scraping. Counts, not timings.
# Usage: hostile_test.sh RDMATOP
source "$(dirname "$0")/lib.sh"
need curl
need python3
bin=$1
client="$(dirname "$0")/hostile_client.py"

start_exporter "$bin" "$fixtures/mlx5" --interval 3600
python3 "$client" starve "$exporter_port" 64 || fail "hostile connections starved the exporter"
python3 "$client" trickle "$exporter_port" || fail "a trickled request kept its connection"
code=$(printf 'POST /metrics HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\nConnection: close\r\n\r\nab' |
  timeout 10 python3 -c 'import socket,sys; s=socket.create_connection(("127.0.0.1",int(sys.argv[1]))); s.sendall(sys.stdin.buffer.read()); print(s.recv(64).split()[1].decode())' "$exporter_port")
[ "$code" = 405 ] || fail "POST answered $code, want 405"
echo "ok: POST answered 405"

hash=$(python3 -W ignore -c 'import crypt; print(crypt.crypt("s3cret", crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1024)))')
case "$hash" in '$2b$'*) ;; *) echo "SKIP: python3 crypt has no bcrypt"; exit $SKIP ;; esac
printf 'basic_auth_users:\n  prom: %s\n' "'$hash'" >"$work/web.yml"
start_exporter "$bin" "$fixtures/mlx5" --interval 3600 --web-config "$work/web.yml"
url="http://127.0.0.1:$exporter_port/metrics"
curl -sS --fail --max-time 10 -u prom:s3cret "$url" >/dev/null || fail "right password refused"
# 40 wrong passwords from 127.0.0.2, 8 at a time: past the burst (10) they are throttled.
seq 1 40 | xargs -P 8 -I{} curl -s -o /dev/null -w '%{http_code}\n' --max-time 20 \
  --interface 127.0.0.2 -u prom:wrong{} "$url" >"$work/codes"
sort "$work/codes" | uniq -c | tr '\n' ' '
echo
grep -qx 429 "$work/codes" || fail "no wrong password was throttled (429)"
! grep -qx 200 "$work/codes" || fail "a wrong password was let in"
# The cached right credentials from 127.0.0.1 are never throttled, and neither is another address.
for _ in 1 2 3; do
  curl -sS --fail --max-time 10 -u prom:s3cret "$url" >/dev/null || fail "right password refused during the flood"
done
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 --interface 127.0.0.4 -u prom:wrong "$url")
[ "$code" = 401 ] || fail "a wrong password from a fresh address answered $code, want 401"
echo "ok: wrong passwords throttled per address, cached credentials unaffected"
echo "PASS"
