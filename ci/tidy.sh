#!/usr/bin/env bash
# clang-tidy (.clang-tidy: bugprone-*, concurrency-*) on gilsan's own sources, every translation unit
# under harness/ and checkers/ of BUILD_DIR's compile_commands.json. Any finding fails the run.
# Usage: ci/tidy.sh [BUILD_DIR] [JOBS]   (exit 3: clang-tidy missing, nothing ran)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
jobs=${2:-$(nproc)}
# Exit 3: clang-tidy is missing (ci/test.sh reports the step as skipped); ci/install-deps.sh installs it.
command -v run-clang-tidy >/dev/null || { echo "ci/tidy.sh: skipped: clang-tidy is not installed (Debian: clang-tidy)" >&2; exit 3; }
[[ -f $build/compile_commands.json ]] || { echo "ci/tidy.sh: $build/compile_commands.json is missing: build first" >&2; exit 2; }
mapfile -t files < <(python3 - "$build/compile_commands.json" "$root" <<'PY'
import json, sys
root = sys.argv[2].rstrip("/") + "/"
for f in sorted({e["file"] for e in json.load(open(sys.argv[1]))}):
    if f.startswith((root + "harness/", root + "checkers/")):
        print(f)
PY
)
echo "ci/tidy.sh: ${#files[@]} files, $jobs at a time"
log=$(mktemp "${TMPDIR:-/tmp}/gilsan-tidy-XXXXXX")
trap 'rm -f "$log"' EXIT
status=0
run-clang-tidy -p "$build" -j "$jobs" -quiet "${files[@]}" > "$log" 2>&1 || status=$?
# run-clang-tidy exits non-zero on any warning (WarningsAsErrors); show the findings only.
if ((status)) || grep -q "warning:\|error:" "$log"; then
  grep -E -A3 "(warning|error):" "$log" | grep -v "^Suppressed\|^Use -header-filter" | head -200
  echo "ci/tidy.sh: clang-tidy found problems" >&2
  exit 1
fi
echo "ci/tidy.sh: clean"
