#!/usr/bin/env bash
# Makes sure the tools and headers gilsan builds with are here, and installs (Debian's apt-get) only
# what is missing. Safe to run again. A machine that already has them (a GPU box with cmake and ninja
# from pip, and no package registry) installs nothing and needs none.
#   required: cmake, ninja, a C++20 compiler, the embedded Python's headers, GoogleTest and GoogleMock,
#             nlohmann-json, Google Benchmark, CLI11, and the CUDA Toolkit (nvcc, cuda.h) under /usr/local/cuda
#             (without a package registry, CLI11 may come as a .deb carried in .debs/: see below)
#   optional: libdw-dev (elfutils: file:line and inlined frames in reports; without it, names only),
#             graphviz (docs' pictures, ci/docs.sh: without it, their doc test is skipped),
#             valgrind (without it, its Helgrind test is skipped, saying so), python3-venv (without it,
#             the peers' conformance tests are left out, saying so), clang with libFuzzer (ci/fuzz.sh)
#             and clang-tidy (ci/tidy.sh): without them ci/test.sh skips those steps, saying so
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
python=${GILSAN_PYTHON:-/usr/bin/python3}
# Where the .deb files carried in .debs/ (ci/gpu-deps.sh) are unpacked when apt-get cannot install
# what is missing; the top CMakeLists.txt looks for CLI11 there.
carried=$root/.debs/unpacked
required=()
optional=()

has_command() { command -v "$1" >/dev/null 2>&1; }
has_any_file() { local file; for file in "$@"; do [[ -e $file ]] && return 0; done; return 1; }
# A header installed, or in a prefix of CMAKE_PREFIX_PATH, which cmake searches too (ci/gpu-run.sh
# points it at the .deb files it unpacks).
header() {
  has_any_file "/usr/include/$1" "/usr/local/include/$1" && return 0
  local prefix prefixes=()
  IFS=: read -ra prefixes <<<"${CMAKE_PREFIX_PATH:-}"
  for prefix in "${prefixes[@]}"; do [[ -e $prefix/include/$1 ]] && return 0; done
  return 1
}

# Fills `required` afresh: run again after unpacking .debs/.
check_required() {
  required=()
  has_command cmake || required+=(cmake)
  has_command ninja || required+=(ninja-build)
  # A C++20 compiler: g++ (10 or newer) or clang++.
  has_command g++ || has_command clang++ || required+=(g++)
  if [[ -x $python ]]; then
    local include
    include=$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
    [[ -e $include/Python.h ]] || required+=(python3-dev)
  else
    required+=(python3-dev)
  fi
  header gtest/gtest.h || required+=(libgtest-dev)
  header gmock/gmock.h || required+=(libgmock-dev)
  header nlohmann/json.hpp || required+=(nlohmann-json3-dev)
  header benchmark/benchmark.h || required+=(libbenchmark-dev)
  # CLI11, the command line's parser; also where it was carried in .debs/ and unpacked.
  header CLI/CLI.hpp || has_any_file "$carried/usr/include/CLI/CLI.hpp" || required+=(libcli11-dev)
}

# Where apt-get cannot install what is required: the .deb files carried in .debs/, if any, unpacked
# into $carried; else one message saying what is missing and how to carry it. Exits when still missing.
use_carried_debs_or_fail() {
  if compgen -G "$root/.debs/*.deb" >/dev/null; then
    "$root/ci/gpu-deps.sh" unpack "$carried" >/dev/null
    check_required
    if ((${#required[@]} == 0)); then
      echo "ci/install-deps.sh: using the packages carried in .debs/ (unpacked into $carried)"
      return
    fi
  fi
  echo "ci/install-deps.sh: missing ${required[*]} ($1)." >&2
  echo "  Install them (Debian package names) and run again. Without a package registry here: run" >&2
  echo "  'ci/gpu-deps.sh download' on a machine that has one and carry .debs/ here (it brings libcli11-dev)." >&2
  exit 1
}

check_required
if [[ -x $python ]]; then
  "$python" -c 'import ensurepip, venv' 2>/dev/null || optional+=(python3-venv)
fi
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
      use_carried_debs_or_fail "apt-get could not install them"
    fi
  elif ((${#required[@]})); then
    use_carried_debs_or_fail "no apt-get to install them with, or not root"
  else
    echo "ci/install-deps.sh: optional ${optional[*]} not installed; what needs it is skipped" >&2
  fi
fi
if ! has_command nvcc && [[ ! -x /usr/local/cuda/bin/nvcc ]]; then
  echo "ci/install-deps.sh: the CUDA Toolkit (nvcc, cuda.h) is required under /usr/local/cuda" >&2
  exit 1
fi
