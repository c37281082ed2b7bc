#!/usr/bin/env bash
# Runs every test: a plain build, an ASan+UBSan build, a TSan build of the concurrent parts, a bounded
# libFuzzer run of the input parsers (ci/fuzz.sh) and clang-tidy (ci/tidy.sh). The tests leave the CPUs
# idle much of the time, so the next build and clang-tidy run behind them at a lower priority.
# Usage: ci/test.sh [plain|asan|tsan|fuzz|tidy]... (default: all five)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
"$root/ci/install-deps.sh"
modes=("$@")
((${#modes[@]})) || modes=(plain asan tsan fuzz tidy)
# clang-tidy needs only the plain build's compile_commands.json, and the test phases leave the CPUs
# idle much of the time (children waiting on watchdogs and timeouts): when both are asked for, it runs
# in the background from the plain build on, at the lowest priority, and `tidy` waits for it.
tidy_pid=""
tidy_log=""
wants_tidy=0
# A failing step ends the script (set -e): the background clang-tidy goes with it, and its log.
stop_tidy() {
  if [[ -n $tidy_pid ]] && kill -0 "$tidy_pid" 2>/dev/null; then
    kill -TERM -- "-$tidy_pid" 2>/dev/null || true  # the whole group: run-clang-tidy and its workers
    wait "$tidy_pid" 2>/dev/null || true
  fi
  [[ -z $tidy_log ]] || rm -f "$tidy_log"
}
# The sanitizer builds likewise: the ASan build runs in the background, at a low priority, from the
# plain step's start (behind its venvs, its build and its tests), and the TSan build while the ASan
# build's tests run; each test step waits for its build first. A build that fails fails its step, with
# its log.
declare -A build_pid=() build_log=()
start_background_build() {  # NAME BUILD_DIR [cmake args...]
  local name=$1
  shift
  build_log[$name]=$(mktemp "${TMPDIR:-/tmp}/gilsan-ci-$name-build-XXXXXX")
  nice -n 10 setsid ci/build.sh "$@" >"${build_log[$name]}" 2>&1 &
  build_pid[$name]=$!
}
finish_background_build() {  # NAME
  local name=$1 status=0
  wait "${build_pid[$name]}" || status=$?
  unset "build_pid[$name]"
  if ((status)); then cat "${build_log[$name]}"; else tail -n 1 "${build_log[$name]}"; fi
  rm -f "${build_log[$name]}"
  unset "build_log[$name]"
  return "$status"
}
stop_background() {
  stop_tidy
  local name
  for name in "${!build_pid[@]}"; do
    kill -TERM -- "-${build_pid[$name]}" 2>/dev/null || true
    wait "${build_pid[$name]}" 2>/dev/null || true
  done
  for name in "${!build_log[@]}"; do rm -f "${build_log[$name]}"; done
}
trap stop_background EXIT
wants_asan=0
wants_tsan=0
for mode in "${modes[@]}"; do
  [[ $mode == tidy ]] && wants_tidy=1
  [[ $mode == asan ]] && wants_asan=1
  [[ $mode == tsan ]] && wants_tsan=1
done
jobs=$(nproc)
# Sanitizer builds at -O1 with line tables only: what the sanitizers recommend for their speed, with
# symbolized file:line stacks, and about half the compile time of -O2 -g on a 2-core CI machine. And
# unity builds (CMake joins each target's sources a few to a file): the headers (nlohmann-json, gtest,
# CLI11) are parsed and their templates instantiated once per joined file instead of once per source,
# which takes the ASan build from about 1,180 to 680 compile-seconds. The plain build stays one
# source at a time, which proves each file includes what it uses (and is what clang-tidy reads).
sanitizer_build=(-DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -g1" "-DCMAKE_C_FLAGS_DEBUG=-O1 -g1"
  -DCMAKE_UNITY_BUILD=ON)
asan_build=(build-asan -DGILSAN_SANITIZE=address,undefined "${sanitizer_build[@]}")
# The concurrent parts only: CPython itself is not built for TSan.
tsan_build=(build-tsan -DGILSAN_SANITIZE=thread "${sanitizer_build[@]}"
  "-DGILSAN_ONLY=driver;profile;driverhooks;simcuda;cudashim;sim;board;watchdog;pymodule;core;sources;inject;checkers")

# Each step's wall time, said when it ends, so a slow CI run shows where its minutes went.
for mode in "${modes[@]}"; do
  step_started=$SECONDS
  case "$mode" in
    plain)
      # From the start: making the venvs below mostly waits on the network.
      if ((wants_asan)); then start_background_build asan "${asan_build[@]}"; fi
      # The peers (cuda.core, cuda.bindings, CuPy) for the conformance tests on the simulated driver.
      peers=$(ci/peers-venv.sh build-peers)
      # Their newest releases, for the outcomes a new release changes (tests/runner/check_peer_versions.py).
      peers_newest=$(ci/pinned-venv.sh build-peers-newest ci/peers-newest-requirements.txt)
      # jsonschema and the SARIF 2.1.0 schema for the report-format checks (ci/schema-requirements.txt).
      schemas=$(ci/pinned-venv.sh build-schemas ci/schema-requirements.txt)
      # pytest for the pytest plugin's test (ci/pytest-requirements.txt).
      pytest_venv=$(ci/pinned-venv.sh build-pytest ci/pytest-requirements.txt)
      # The wheel's build backend and the pinned pytest's wheels, for the pip-installed gilsan's test.
      wheel_venv=$(ci/wheel-venv.sh build-wheel)
      # Line tables only (-g1): symbolized stacks at a smaller compile and link time than -g.
      # The tests unity-built (GILSAN_UNITY_TESTS): about half of the plain build's compile time was theirs (592
      # of 1,158 compile-seconds on a fresh clone of 5e11158, .ninja_log).
      ci/build.sh build "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" \
        -DGILSAN_UNITY_TESTS=ON \
        "-DGILSAN_PEERS_VENV=$peers" "-DGILSAN_PEERS_NEWEST_VENV=$peers_newest" "-DGILSAN_SCHEMA_VENV=$schemas" \
        "-DGILSAN_PYTEST_VENV=$pytest_venv" "-DGILSAN_WHEEL_VENV=$wheel_venv"
      if ((wants_tidy)); then
        tidy_log=$(mktemp "${TMPDIR:-/tmp}/gilsan-ci-tidy-XXXXXX")
        # Its own process group (setsid), so that stopping it reaches run-clang-tidy's workers too.
        nice -n 19 setsid ci/tidy.sh build "$jobs" >"$tidy_log" 2>&1 &
        tidy_pid=$!
      fi
      ctest --test-dir build --output-on-failure -j"$jobs" --timeout 300
      ;;
    asan)
      wants_asan=0
      if [[ -n ${build_pid[asan]:-} ]]; then finish_background_build asan; else ci/build.sh "${asan_build[@]}"; fi
      if ((wants_tsan)); then start_background_build tsan "${tsan_build[@]}"; fi
      # CPython keeps its interned objects until exit on purpose; suppress only libpython's leaks.
      # LeakSanitizer's own tracer has crashed at a process's exit under the load of parallel tests
      # ("Tracer caught signal 11 ... LeakSanitizer has encountered a fatal error", runner.suite.data,
      # 2026-12-06) with every check of the test passed: tests that failed that way, and only that
      # way (ci/lsan_tracer_flakes.py), are run once more, alone, and must pass then.
      asan_env=(ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 LSAN_OPTIONS=suppressions=$root/ci/lsan.supp
                UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1)
      if ! env "${asan_env[@]}" ctest --test-dir build-asan --output-on-failure -j"$jobs" --timeout 600; then
        flakes=$(python3 ci/lsan_tracer_flakes.py build-asan) || exit 1
        echo "ci/test.sh: asan: LeakSanitizer's tracer crashed in: $flakes; running them again, alone"
        env "${asan_env[@]}" ctest --test-dir build-asan --output-on-failure --rerun-failed --timeout 600
        echo "ci/test.sh: asan: passed on the second run (a tracer crash, not a pass on the first): $flakes"
      fi
      ;;
    tsan)
      wants_tsan=0
      if [[ -n ${build_pid[tsan]:-} ]]; then finish_background_build tsan; else ci/build.sh "${tsan_build[@]}"; fi
      TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
        ctest --test-dir build-tsan --output-on-failure -j"$jobs" --timeout 600
      ;;
    fuzz)
      # ci/fuzz.sh exits 3 when clang or libFuzzer is missing (a machine where install-deps could not add them).
      fuzz_status=0
      ci/fuzz.sh --runs 100000 || fuzz_status=$?
      if ((fuzz_status == 3)); then echo "ci/test.sh: fuzz skipped (see above)"; elif ((fuzz_status)); then exit "$fuzz_status"; fi
      ;;
    tidy)
      if [[ -n $tidy_pid ]]; then
        tidy_status=0
        wait "$tidy_pid" || tidy_status=$?
        tidy_pid=""
        cat "$tidy_log"
        rm -f "$tidy_log"
        tidy_log=""
        # 3: clang-tidy is not installed here (skipped, saying so).
        ((tidy_status == 0 || tidy_status == 3)) || exit "$tidy_status"
      else
        [[ -f build/compile_commands.json ]] || ci/build.sh build
        tidy_status=0
        ci/tidy.sh build "$jobs" || tidy_status=$?
        ((tidy_status == 0 || tidy_status == 3)) || exit "$tidy_status"
      fi
      ;;
    *) echo "ci/test.sh: unknown mode '$mode' (plain, asan, tsan, fuzz, tidy)" >&2; exit 2 ;;
  esac
  echo "ci/test.sh: $mode took $((SECONDS - step_started)) s ($SECONDS s so far)"
done
