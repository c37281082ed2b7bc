#!/usr/bin/env bash
# The Debian packages a GPU machine's build needs and cannot install (it has no package registry),
# carried as .deb files in .debs/ (git-ignored; name it in the device call's `carry`).
#   ci/gpu-deps.sh download         here: apt-get download them into .debs/
#   ci/gpu-deps.sh unpack PREFIX    there: dpkg -x each into PREFIX; prints the variables to export
# Today: elfutils' libdw and libelf with their headers, for file:line in reports (harness/watchdog/
# source_lines.h). gilsan loads libdw.so.1 with dlopen, so where the machine lacks it, the unpacked
# library is found through LD_LIBRARY_PATH.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
debs=$root/.debs
packages=(libdw-dev libelf-dev libdw1 libelf1)

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
