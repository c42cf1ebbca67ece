#!/usr/bin/env bash
# Installs everything rdmatop needs to build and test, from Debian 12 packages only.
# Idempotent; run as root (or through sudo).
# Usage: scripts/install-deps.sh [--bench]   (--bench: bench_packages below as well)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)

packages=(
  # build
  cmake g++ make ninja-build pkg-config ccache clang-format
  # the libFuzzer targets (scripts/fuzz.sh, docs/fuzzing.md): clang and its fuzzer runtime
  clang libclang-rt-14-dev
  # libraries
  libibverbs-dev librdmacm-dev libmnl-dev libncurses-dev nlohmann-json3-dev prometheus-cpp-dev
  catch2 libyaml-cpp-dev libcli11-dev libfmt-dev zlib1g-dev libcrypt-dev
  # report --capture reads .tar.gz incident bundles
  libarchive-dev
  # Prometheus's regular expressions (RE2 syntax) for PromQL and the exporter's filters
  libre2-dev
  # the counter files of a tick read in one io_uring_enter per directory (batched_pread.h)
  liburing-dev
  # the /metrics page deflated whole for gzip scrapes (exporters/http/gzip_parts.h)
  libisal-dev
  # the probe handshake links libcrypto (HMAC-SHA256, probes/protocol.cpp)
  libssl-dev
  # real tools the tests compare against or drive
  ethtool iproute2 tmux prometheus curl
  # packaging (cmake/Install.cmake, tests/package): man pages made by help2man from --help,
  # dpkg-shlibdeps (dpkg-dev) for the .deb's Depends, man -w (man-db), systemd-analyze verify
  # of the installed unit (systemd), the zsh completion run by zsh, the manifests parsed by
  # python3-yaml (tests/exporter/deploy_test.sh)
  help2man dpkg-dev man-db systemd zsh python3-yaml
  # the documented TLS recipe (tests/exporter/tls_proxy_test.sh): stunnel in front of the
  # exporter, a certificate made by the openssl command
  stunnel4 openssl
)
# The peers and tools the benchmarks measure against or with (bench/README.md), which neither
# the build nor the tests need: node_exporter, wrk (scrapes), strace, valgrind (callgrind), perf.
bench_packages=(prometheus-node-exporter wrk strace valgrind linux-perf)
case "${1:-}" in
  '') ;;
  --bench) packages+=("${bench_packages[@]}") ;;
  *) echo "usage: $0 [--bench]" >&2; exit 2 ;;
esac
# The Soft-RoCE VM harness keeps its own list (tests/vm/packages.txt).
if [ -f "$here/tests/vm/packages.txt" ]; then
  while read -r pkg _; do
    case "$pkg" in ''|'#'*) ;; *) packages+=("$pkg") ;; esac
  done < "$here/tests/vm/packages.txt"
fi

missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
as_root=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: run as root (no sudo found)" >&2; exit 1; }
  as_root=(sudo)
fi
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -q --no-install-recommends "${missing[@]}"
