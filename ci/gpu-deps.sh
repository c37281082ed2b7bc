#!/usr/bin/env bash
# The Debian packages a GPU machine's build needs and cannot install (it has no package registry),
# carried as .deb files in .debs/ (git-ignored; name it in the device call's `carry`).
#   ci/gpu-deps.sh download         here: apt-get download them into .debs/
#   ci/gpu-deps.sh unpack PREFIX    there: dpkg -x each into PREFIX; prints the variables to export
# Today: elfutils' libdw and libelf with their headers, for file:line in reports (harness/watchdog/
# source_lines.h). gilsan loads libdw.so.1 with dlopen, so where the machine lacks it, the unpacked
# library is found through LD_LIBRARY_PATH. And CLI11 (libcli11-dev), which parses the command line:
# header-only, its CMake config in usr/share/cmake/CLI11, found through CMAKE_PREFIX_PATH=PREFIX/usr
# (that config finds its headers relative to itself, so an unpacked copy works wherever it lies);
# ahead of an installed CLI11 (the H200 machine has 2.4.1), so GPU builds use the CPU machines' 2.1.2.
# And Google Benchmark (libbenchmark-dev, libbenchmark1debian), for the C++ benchmarks that time the
# real driver (tests/cudashim/driver_call_bench.cpp); its CMake config is found the same way, and the
# programs find its library through the build's RPATH.
# ci/install-deps.sh unpacks .debs/ into .debs/unpacked where a required header is missing and
# apt-get cannot install it; the top CMakeLists.txt looks for CLI11 there.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
debs=$root/.debs
packages=(libdw-dev libelf-dev libdw1 libelf1 libcli11-dev libbenchmark-dev libbenchmark1debian)

case "${1:-}" in
  download)
    mkdir -p "$debs"
    (cd "$debs" && apt-get download "${packages[@]}")
    ls "$debs" ;;
  unpack)
    prefix=${2:?usage: ci/gpu-deps.sh unpack PREFIX}
    shopt -s nullglob
    files=("$debs"/*.deb)
    ((${#files[@]})) || { echo "ci/gpu-deps.sh: no .deb files in $debs (run 'ci/gpu-deps.sh download' and carry .debs)" >&2; exit 1; }
    mkdir -p "$prefix"
    for file in "${files[@]}"; do dpkg -x "$file" "$prefix"; done
    echo "CMAKE_PREFIX_PATH=$prefix/usr"
    if ! /sbin/ldconfig -p 2>/dev/null | grep -q 'libdw\.so\.1 '; then
      echo "LD_LIBRARY_PATH=$prefix/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    fi ;;
  *)
    echo "usage: ci/gpu-deps.sh download | unpack PREFIX" >&2
    exit 2 ;;
esac
