#!/usr/bin/env bash
# Load test (#22): the exporter with basic auth under SCRAPERS concurrent scrapers (each scrapes
# every 2 s) for SECONDS, while IDLE idle sockets are held open (re-opened whenever the server
# closes one) and 8 clients flood wrong passwords from another address. Every scrape must succeed
# and the exporter's RSS must stay flat (second half within 25% of the first half's peak).
# Loopback only; the client is one asyncio process.
# Usage: flood_test.sh RDMATOP [SECONDS] [SCRAPERS] [IDLE]
source "$(dirname "$0")/lib.sh"
need python3
bin=$1
seconds=${2:-30}
scrapers=${3:-500}
idle=${4:-1000}

hash=$(python3 -W ignore -c 'import crypt; print(crypt.crypt("s3cret", crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1024)))')
case "$hash" in '$2b$'*) ;; *) echo "SKIP: python3 crypt has no bcrypt"; exit $SKIP ;; esac
printf 'basic_auth_users:\n  prom: %s\n' "'$hash'" >"$work/web.yml"
# The hard RLIMIT_NOFILE must fit idle + scrapers (the exporter raises its soft limit itself).
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
# Under AddressSanitizer freed memory waits in a quarantine of up to 256 MiB before it is reused
# (its quarantine_size_mb), so RSS grows with the bytes freed, not with the bytes live, until the
# quarantine is full: an exporter that allocates less per scrape fills it more slowly, within
# the run. A 16 MiB quarantine keeps use-after-free detection and lets RSS show live memory.
# Other builds ignore ASAN_OPTIONS.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=16"
start_exporter "$bin" "$fixtures/mlx5" --interval 1 --no-raw-counters --web-config "$work/web.yml"
rc=0
python3 "$(dirname "$0")/hostile_client.py" load "$exporter_port" "${pids[-1]}" "$seconds" \
  "$scrapers" "$idle" prom:s3cret prom:wrong || rc=$?
[ "$rc" = 77 ] && exit $SKIP
[ "$rc" = 0 ] || fail "load test"
echo "PASS"
