#!/usr/bin/env bash
# ci/pinned-venv.sh DIR REQUIREMENTS: prints the path of a virtualenv in DIR holding the pinned set in
# REQUIREMENTS, made with the interpreter gilsan embeds; prints nothing (and says why on stderr) when
# none can be had (no package registry), so that the caller leaves out what needs it rather than fail.
# DIR is reused while it holds the same set, and removed when an install fails.
set -uo pipefail
folder=${1:?usage: ci/pinned-venv.sh DIR REQUIREMENTS}
requirements=${2:?usage: ci/pinned-venv.sh DIR REQUIREMENTS}
python=${GILSAN_PYTHON:-/usr/bin/python3}
stamp=$folder/.gilsan-requirements
if [[ -f $stamp ]] && cmp -s "$stamp" "$requirements"; then
  echo "$(cd "$folder" && pwd)"
  exit 0
fi
rm -rf "$folder"
echo "ci/pinned-venv.sh: installing $(grep -c '==' "$requirements") pinned packages into $folder" >&2
if "$python" -m venv "$folder" >&2 &&
   "$folder/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$requirements" >&2; then
  cp "$requirements" "$stamp"
  echo "$(cd "$folder" && pwd)"
else
  echo "ci/pinned-venv.sh: could not install $requirements (no package registry?); what needs it is left out" >&2
  rm -rf "$folder"
fi
exit 0
