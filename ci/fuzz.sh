#!/usr/bin/env bash
# Fuzzes the parsers of what users hand gilsan (tests/fuzz) with libFuzzer: each target for SECONDS
# (default 15) from its committed corpus, under ASan and UBSan. Inputs the fuzzer finds go to a scratch
# folder that is removed at the end; with --merge, those that reach new code are added to the committed
# corpus (commit them). A crash, a hang (-timeout) or a broken rule (tests/fuzz/fuzz_rules.h) fails the
# run and leaves the input in BUILD/artifacts/.
# With --runs N each target makes exactly N runs from a fixed seed instead: the same inputs every time,
# so a CI result does not depend on the machine's speed or luck (CI uses it; a new finding then comes
# from a change, not from the day). New territory is for the time-bounded runs.
# Usage: ci/fuzz.sh [--merge] [--runs N] [SECONDS] [BUILD_DIR]   (exit 3: clang or libFuzzer missing)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
merge=0
runs=""
while [[ ${1:-} == --* ]]; do
  case "$1" in
    --merge) merge=1; shift ;;
    --runs) runs=${2:-}; shift 2 || true
            [[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "ci/fuzz.sh: --runs needs a positive whole number" >&2; exit 2; } ;;
    *) echo "ci/fuzz.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
seconds=${1:-15}
build=${2:-$root/build-fuzz}
[[ $seconds =~ ^[0-9]+$ ]] || { echo "ci/fuzz.sh: SECONDS must be a whole number, not '$seconds'" >&2; exit 2; }
# Exit 3: the tools are missing (ci/test.sh reports the step as skipped); ci/install-deps.sh installs them.
fuzzer_library=$(clang++ -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null || true)
if [[ $fuzzer_library != /* || ! -e $fuzzer_library ]]; then
  echo "ci/fuzz.sh: skipped: clang++ with libFuzzer is not installed (Debian: clang libclang-rt-14-dev)" >&2
  exit 3
fi

export PATH=/usr/local/cuda/bin:$PATH
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
  -DPython3_EXECUTABLE="${GILSAN_PYTHON:-/usr/bin/python3}" \
  -DCMAKE_CXX_COMPILER=clang++ -DGILSAN_ONLY=fuzz -DGILSAN_FUZZ=ON >/dev/null
cmake --build "$build" -j"$(nproc)"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/gilsan-fuzz-XXXXXX")
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$build/artifacts"
failed=()
for target in "$build"/bin/gilsan_fuzz_*; do
  parser=${target##*/gilsan_fuzz_}
  corpus=$root/tests/fuzz/corpus/$parser
  dictionary=()
  [[ -f $root/tests/fuzz/dictionaries/$parser.dict ]] && dictionary=(-dict="$root/tests/fuzz/dictionaries/$parser.dict")
  mkdir -p "$scratch/$parser"
  if [[ -n $runs ]]; then
    budget=(-runs="$runs" -seed=1)
    echo "== $parser: $runs runs (seed 1) from $(find "$corpus" -type f | wc -l) inputs"
  else
    budget=(-max_total_time="$seconds")
    echo "== $parser: ${seconds} s from $(find "$corpus" -type f | wc -l) inputs"
  fi
  # New inputs go to the first folder (scratch); the committed corpus is only read. 2 s for one input
  # is a hang: every parser here is linear.
  if ! "$target" "$scratch/$parser" "$corpus" "${dictionary[@]}" "${budget[@]}" -timeout=2 -rss_limit_mb=2048 \
       -max_len=65536 -print_final_stats=1 -artifact_prefix="$build/artifacts/$parser-" \
       > "$scratch/$parser.log" 2>&1; then
    failed+=("$parser")
    tail -40 "$scratch/$parser.log"
  else
    grep -E "^stat::number_of_executed_units|^Done [0-9]+ runs" "$scratch/$parser.log" | tr '\n' ' '
    echo
  fi
  if ((merge)); then
    "$target" -merge=1 "$corpus" "$scratch/$parser" > /dev/null 2>&1
  fi
done
if ((${#failed[@]})); then
  echo "ci/fuzz.sh: failed: ${failed[*]} (inputs in $build/artifacts/)" >&2
  exit 1
fi
if [[ -n $runs ]]; then echo "ci/fuzz.sh: every parser held for $runs runs"; else echo "ci/fuzz.sh: every parser held for $seconds s"; fi
