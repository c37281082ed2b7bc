#!/usr/bin/env bash
# Makes sure the tools and headers gilsan builds with are here, and installs (Debian's apt-get) only
# what is missing. Safe to run again. A machine that already has them (a GPU box with cmake and ninja
# from pip, and no package registry) installs nothing and needs none.
#   required: cmake, ninja, a C++20 compiler, the embedded Python's headers, GoogleTest and GoogleMock,
#             nlohmann-json, Google Benchmark, and the CUDA Toolkit (nvcc, cuda.h) under /usr/local/cuda
#   optional: libdw-dev (elfutils: file:line and inlined frames in reports; without it, names only),
#             graphviz (docs' pictures, ci/docs.sh: without it, their doc test is skipped),
#             valgrind (without it, its Helgrind test is skipped, saying so), python3-venv (without it,
#             the peers' conformance tests are left out, saying so), clang with libFuzzer (ci/fuzz.sh)
#             and clang-tidy (ci/tidy.sh): without them ci/test.sh skips those steps, saying so
set -euo pipefail
python=${GILSAN_PYTHON:-/usr/bin/python3}
required=()
optional=()

has_command() { command -v "$1" >/dev/null 2>&1; }
has_any_file() { local file; for file in "$@"; do [[ -e $file ]] && return 0; done; return 1; }
header() { has_any_file "/usr/include/$1" "/usr/local/include/$1"; }

has_command cmake || required+=(cmake)
has_command ninja || required+=(ninja-build)
# A C++20 compiler: g++ (10 or newer) or clang++.
has_command g++ || has_command clang++ || required+=(g++)
if [[ -x $python ]]; then
  include=$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
  [[ -e $include/Python.h ]] || required+=(python3-dev)
  "$python" -c 'import ensurepip, venv' 2>/dev/null || optional+=(python3-venv)
else
  required+=(python3-dev)
fi
header gtest/gtest.h || required+=(libgtest-dev)
header gmock/gmock.h || required+=(libgmock-dev)
header nlohmann/json.hpp || required+=(nlohmann-json3-dev)
header benchmark/benchmark.h || required+=(libbenchmark-dev)
has_command valgrind || optional+=(valgrind)
# Graphviz: the doc test that draws each deadlock class's picture (ci/docs.sh); skipped without it.
has_command dot || optional+=(graphviz)
# elfutils' headers: file:line and inlined frames in reports (without them, function names only).
header elfutils/libdwfl.h || optional+=(libdw-dev)
has_libfuzzer() {
  has_command clang++ || return 1
  local library
  library=$(clang++ -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null) && [[ $library == /* && -e $library ]]
}
has_libfuzzer || optional+=(clang libclang-rt-14-dev)
has_command run-clang-tidy || optional+=(clang-tidy)

if ((${#required[@]} + ${#optional[@]})); then
  if has_command apt-get && [[ $(id -u) == 0 ]]; then
    export DEBIAN_FRONTEND=noninteractive
    wanted=("${required[@]}" "${optional[@]}")
    echo "ci/install-deps.sh: installing ${wanted[*]}"
    apt_ok=true
    apt-get update -qq || apt_ok=false
    if $apt_ok && ((${#required[@]})); then
      apt-get install -y -qq --no-install-recommends "${required[@]}" || apt_ok=false
    fi
    if $apt_ok && ((${#optional[@]})); then
      for package in "${optional[@]}"; do
        apt-get install -y -qq --no-install-recommends "$package" ||
          echo "ci/install-deps.sh: optional $package not installed; what needs it is skipped" >&2
      done
    fi
    if ! $apt_ok && ((${#required[@]})); then
      echo "ci/install-deps.sh: missing ${required[*]}, and apt-get could not install them" >&2
      exit 1
    fi
  elif ((${#required[@]})); then
    echo "ci/install-deps.sh: missing ${required[*]}; install them (Debian package names) and run again" >&2
    exit 1
  else
    echo "ci/install-deps.sh: optional ${optional[*]} not installed; what needs it is skipped" >&2
  fi
fi
if ! has_command nvcc && [[ ! -x /usr/local/cuda/bin/nvcc ]]; then
  echo "ci/install-deps.sh: the CUDA Toolkit (nvcc, cuda.h) is required under /usr/local/cuda" >&2
  exit 1
fi
