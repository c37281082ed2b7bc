#!/usr/bin/env bash
# ci/wheel-venv.sh DIR: prints the path of a virtualenv in DIR that builds gilsan's wheel (the pinned
# backend of ci/wheel-requirements.txt) and holds, in DIR/wheelhouse, the wheels of the pinned pytest
# (ci/pytest-requirements.txt) for a fresh virtualenv to install with no package registry
# (tests/pytest_plugin/check_wheel.py). Prints nothing, saying why on stderr, when a registry is needed
# and there is none: the wheel's test is then skipped.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
folder=${1:?usage: ci/wheel-venv.sh DIR}
venv=$("$root/ci/pinned-venv.sh" "$folder" "$root/ci/wheel-requirements.txt")
[[ -n $venv ]] || exit 0
wheelhouse=$venv/wheelhouse
stamp=$wheelhouse/.gilsan-requirements
if ! { [[ -f $stamp ]] && cmp -s "$stamp" "$root/ci/pytest-requirements.txt"; }; then
  rm -rf "$wheelhouse"
  if "$venv/bin/python" -m pip download --quiet --disable-pip-version-check --no-input --no-deps --only-binary=:all: \
       -r "$root/ci/pytest-requirements.txt" -d "$wheelhouse" >&2; then
    cp "$root/ci/pytest-requirements.txt" "$stamp"
  else
    echo "ci/wheel-venv.sh: could not download ci/pytest-requirements.txt's wheels (no package registry?); the wheel's test is left out" >&2
    rm -rf "$wheelhouse"
    exit 0
  fi
fi
echo "$venv"
