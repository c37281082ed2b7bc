#!/usr/bin/env bash
# The peers' newest releases (ci/peers-newest-requirements.txt) for the GPU machine, which has no package
# registry: carried as wheels in .whl/ (git-ignored; name it in the device call's `carry`).
#   ci/gpu-peer-wheels.sh download          here: pip download them, for CPython 3.12 on x86-64, into .whl/
#   ci/gpu-peer-wheels.sh venv DIR BASE     there: a venv in DIR with BASE's interpreter, holding the wheels,
#                                           then everything else of the venv BASE (CuPy, NumPy): prints DIR
#   ci/gpu-peer-wheels.sh wheel-tools       here: pip download ci/wheel-requirements.txt's and
#                                           ci/pytest-requirements.txt's wheels (pure Python) into .whl/wheel,
#                                           for ci/gpu-run.sh's wheel step
# Only the packages whose pinned and newest versions differ are carried; the rest comes from BASE.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
wheels=$root/.whl

# name==version lines of the newest requirements that the pinned ones do not have.
changed() {
  grep -E '^[A-Za-z0-9_.-]+==' "$root/ci/peers-newest-requirements.txt" | grep -vxFf <(grep -E '^[A-Za-z0-9_.-]+==' "$root/ci/peers-requirements.txt")
}

case "${1:-}" in
  download)
    mkdir -p "$wheels"
    mapfile -t packages < <(changed)
    ((${#packages[@]})) || { echo "ci/gpu-peer-wheels.sh: the newest releases are the pinned ones: nothing to carry" >&2; exit 0; }
    python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
      --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
      --platform manylinux2014_x86_64 -d "$wheels" "${packages[@]}"
    ls "$wheels" ;;
  venv)
    folder=${2:?usage: ci/gpu-peer-wheels.sh venv DIR BASE}
    base=${3:?usage: ci/gpu-peer-wheels.sh venv DIR BASE}
    shopt -s nullglob
    files=("$wheels"/*.whl)
    ((${#files[@]})) || { echo "ci/gpu-peer-wheels.sh: no wheels in $wheels (run 'ci/gpu-peer-wheels.sh download' and carry .whl)" >&2; exit 1; }
    interpreter=$(readlink -f "$base/bin/python")
    rm -rf "$folder"
    "$interpreter" -m venv --without-pip "$folder" >&2
    site=$("$folder/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    "$base/bin/python" -m pip install --quiet --no-index --no-deps --no-compile --target "$site" "${files[@]}" >&2
    # After the venv's own folder: its newest releases shadow BASE's pinned ones, the rest is BASE's.
    "$base/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' >"$site/zz-gilsan-base-venv.pth"
    echo "$folder" ;;
  wheel-tools)
    python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$wheels/wheel" \
      -r "$root/ci/wheel-requirements.txt" -r "$root/ci/pytest-requirements.txt"
    ls "$wheels/wheel" ;;
  *)
    echo "usage: ci/gpu-peer-wheels.sh download | venv DIR BASE | wheel-tools" >&2
    exit 2 ;;
esac
