#!/usr/bin/env bash
# ci/docs.sh [BUILD_DIR] [OUT_DIR]: draws the wait-for graph of each deadlock class from a real run of
# its scenario on the simulated driver (`gilsan run --dot`, rendered by Graphviz's dot) into OUT_DIR,
# docs/explain/pictures by default, where each class's page shows it. Exit 3: dot is not installed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
out=${2:-$root/docs/explain/pictures}
command -v dot >/dev/null || { echo "ci/docs.sh: skipped: Graphviz's dot is not installed (Debian: graphviz)" >&2; exit 3; }
gilsan=$build/bin/gilsan
[[ -x $gilsan ]] || { echo "ci/docs.sh: $gilsan is missing: build first (ci/build.sh $build)" >&2; exit 2; }
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/gilsan-docs-XXXXXX")
trap 'rm -rf "$work"' EXIT
while read -r class scenario; do
  # A deadlock scenario meets its expectation when it hangs as its class: exit 0.
  if ! "$gilsan" run "$root/scenarios/deadlock/$scenario" --driver sim --dot "$work/$class.dot" >"$work/$class.log" 2>&1; then
    echo "ci/docs.sh: gilsan run scenarios/deadlock/$scenario did not end as expected:" >&2
    cat "$work/$class.log" >&2
    exit 1
  fi
  [[ -s $work/$class.dot ]] || { echo "ci/docs.sh: scenarios/deadlock/$scenario left no DOT" >&2; exit 1; }
  dot -Tsvg "$work/$class.dot" -o "$out/$class.svg"
  echo "ci/docs.sh: $out/$class.svg from scenarios/deadlock/$scenario"
done <<'CLASSES'
gil-driver-inversion gil_inversion.py
callback-self-wait callback_self_wait.py
callback-serialization callback_serialization.py
callback-driver-lock callback_driver_lock.py
user-lock-inversion user_lock_inversion.py
finalization finalization.py
gpu-stall gpu_stall.py
CLASSES
