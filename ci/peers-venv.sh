#!/usr/bin/env bash
# ci/peers-venv.sh DIR: prints the path of a virtualenv that has the peer implementations of
# ci/peers-requirements.txt, for `gilsan suite --python-env`; prints nothing (and says why on stderr)
# when none can be had, so that the caller leaves the peers out rather than fail.
#
#   $GILSAN_PEERS_VENV set: that venv, as it is (the GPU machine's /opt/torch/.venv).
#   DIR already holds the pinned set: DIR.
#   otherwise: ci/pinned-venv.sh DIR with the pinned set; without a package registry that prints
#   nothing, and the peers' tests are left out.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
folder=${1:?usage: ci/peers-venv.sh DIR}
requirements=$root/ci/peers-requirements.txt

if [[ -n ${GILSAN_PEERS_VENV:-} ]]; then
  [[ -x $GILSAN_PEERS_VENV/bin/python ]] || { echo "ci/peers-venv.sh: GILSAN_PEERS_VENV=$GILSAN_PEERS_VENV is not a venv" >&2; exit 1; }
  echo "$GILSAN_PEERS_VENV"
  exit 0
fi
"$root/ci/pinned-venv.sh" "$folder" "$requirements"
