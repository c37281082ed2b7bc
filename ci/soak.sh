#!/usr/bin/env bash
# The long soak (docs/reliability.md): 500 runs in one `gilsan suite`, then two suites of 250 at once,
# each with the runner's descriptors and memory checked flat (tests/runner/check_soak.py).
# Usage: ci/soak.sh [BUILD_DIR] (default build; ci/build.sh makes it).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
check=$root/tests/runner/check_soak.py
python3 "$check" "$build/bin/gilsan" 500 --jobs 2
python3 "$check" "$build/bin/gilsan" 250 --jobs 2 & first=$!
python3 "$check" "$build/bin/gilsan" 250 --jobs 2 & second=$!
status=0
wait "$first" || status=1
wait "$second" || status=1
exit "$status"
