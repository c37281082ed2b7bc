#!/usr/bin/env bash
# ci/peers-venv.sh DIR: prints the path of a virtualenv that has the peer implementations of
# ci/peers-requirements.txt, for `gilsan suite --python-env`; prints nothing (and says why on stderr)
# when none can be had, so that the caller leaves the peers out rather than fail.
#
#   $GILSAN_PEERS_VENV set: that venv, as it is (the GPU machine's /opt/torch/.venv).
#   DIR already holds the pinned set: DIR.
#   otherwise: DIR is made with the interpreter gilsan embeds and pip installs the pinned set; without
#   a package registry that fails, and DIR is removed again.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
folder=${1:?usage: ci/peers-venv.sh DIR}
python=${GILSAN_PYTHON:-/usr/bin/python3}
requirements=$root/ci/peers-requirements.txt

if [[ -n ${GILSAN_PEERS_VENV:-} ]]; then
  [[ -x $GILSAN_PEERS_VENV/bin/python ]] || { echo "ci/peers-venv.sh: GILSAN_PEERS_VENV=$GILSAN_PEERS_VENV is not a venv" >&2; exit 1; }
  echo "$GILSAN_PEERS_VENV"
  exit 0
fi
stamp=$folder/.gilsan-requirements
if [[ -f $stamp ]] && cmp -s "$stamp" "$requirements"; then
  echo "$(cd "$folder" && pwd)"
  exit 0
fi
rm -rf "$folder"
echo "ci/peers-venv.sh: installing $(grep -c '==' "$requirements") pinned packages into $folder" >&2
if "$python" -m venv "$folder" >&2 &&
   "$folder/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$requirements" >&2; then
  cp "$requirements" "$stamp"
  echo "$(cd "$folder" && pwd)"
else
  echo "ci/peers-venv.sh: no peer packages (no package registry?); the peers' conformance tests are left out" >&2
  rm -rf "$folder"
fi
exit 0
