#!/usr/bin/env bash
# Configures and builds rdmatop into build/ (binary: build/bin/rdmatop). Extra arguments go to
# the CMake configure step, e.g. scripts/build.sh -DRDMATOP_WERROR=ON.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${RDMATOP_BUILD_DIR:-$here/build}
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@"
cmake --build "$build" -j"$(nproc)"
