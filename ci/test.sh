#!/usr/bin/env bash
# Runs every test: a plain build, an ASan+UBSan build, and a TSan build of the concurrent parts.
# Usage: ci/test.sh [plain|asan|tsan]... (default: all three)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
"$root/ci/install-deps.sh"
modes=("$@")
((${#modes[@]})) || modes=(plain asan tsan)
jobs=$(nproc)
# Sanitizer builds at -O1 with line tables only: what the sanitizers recommend for their speed, with
# symbolized file:line stacks, and about half the compile time of -O2 -g on a 2-core CI machine.
sanitizer_build=(-DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -g1" "-DCMAKE_C_FLAGS_DEBUG=-O1 -g1")

for mode in "${modes[@]}"; do
  case "$mode" in
    plain)
      # The peers (cuda.core, cuda.bindings, CuPy) for the conformance tests on the simulated driver.
      peers=$(ci/peers-venv.sh build-peers)
      # Line tables only (-g1): symbolized stacks at a smaller compile and link time than -g.
      ci/build.sh build "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" \
        "-DGILSAN_PEERS_VENV=$peers"
      ctest --test-dir build --output-on-failure -j"$jobs" --timeout 300
      ;;
    asan)
      ci/build.sh build-asan -DGILSAN_SANITIZE=address,undefined "${sanitizer_build[@]}"
      # CPython keeps its interned objects until exit on purpose; suppress only libpython's leaks.
      ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 LSAN_OPTIONS=suppressions=$root/ci/lsan.supp \
        UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        ctest --test-dir build-asan --output-on-failure -j"$jobs" --timeout 600
      ;;
    tsan)
      # The concurrent parts only: CPython itself is not built for TSan.
      ci/build.sh build-tsan -DGILSAN_SANITIZE=thread "${sanitizer_build[@]}" "-DGILSAN_ONLY=driver;profile;driverhooks;simcuda;cudashim;sim;board;watchdog;pymodule;core;sources;inject;checkers"
      TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
        ctest --test-dir build-tsan --output-on-failure -j"$jobs" --timeout 600
      ;;
    *) echo "ci/test.sh: unknown mode '$mode' (plain, asan, tsan)" >&2; exit 2 ;;
  esac
done
