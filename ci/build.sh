#!/usr/bin/env bash
# ci/build.sh BUILD_DIR [extra cmake args...]: configures and builds gilsan into BUILD_DIR.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: ci/build.sh BUILD_DIR [cmake args...]}
shift
export PATH=/usr/local/cuda/bin:$PATH
# The system interpreter: its libpython is what the harness embeds.
python=${GILSAN_PYTHON:-/usr/bin/python3}
mkdir -p "$build"
cmake -S "$root" -B "$build" -G Ninja -DPython3_EXECUTABLE="$python" "$@" >"$build/configure.log" 2>&1 \
  || { cat "$build/configure.log"; exit 1; }
# GILSAN_BUILD_TARGETS: only these targets (a GPU run that needs gilsan and its libraries, not the tests).
ninja -C "$build" -j"$(nproc)" ${GILSAN_BUILD_TARGETS:-}
