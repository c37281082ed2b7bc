#!/usr/bin/env bash
# The main job: builds gilsan and runs the whole scenario suite on the default driver (auto: the real
# driver when a GPU is usable, else the simulated one), peers included: the pinned peers venv
# (ci/peers-venv.sh, as ci/test.sh makes it) gives the conformance matrix its CuPy, cuda.core and
# cuda.bindings columns. Where no package registry can be reached it is left out, saying so, and those
# columns are skips. Extra arguments go to `gilsan suite` (a --python-env there wins over the venv's).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
"$root/ci/install-deps.sh"
peers=$(ci/peers-venv.sh build-peers)
python_env=()
if [[ -n $peers ]]; then
  python_env=(--python-env "$peers")
else
  echo "ci/suite.sh: no peers venv (see above): the peers' columns are skips"
fi
ci/build.sh build "-DGILSAN_PEERS_VENV=$peers"
exec build/bin/gilsan suite "$root/scenarios" --junit build/suite-junit.xml "${python_env[@]}" "$@"
