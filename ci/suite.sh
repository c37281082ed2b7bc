#!/usr/bin/env bash
# The main job: builds gilsan and runs the whole scenario suite on the default driver (auto: the real
# driver when a GPU is usable, else the simulated one), peers included: the pinned peers venv
# (ci/peers-venv.sh, as ci/test.sh makes it) gives the conformance matrix its CuPy, cuda.core and
# cuda.bindings columns. Where no package registry can be reached it is left out, saying so, and those
# columns are skips. Extra arguments go to `gilsan suite` (a --python-env there wins over the venv's).
#
# Its exit status is gilsan's: its own scenarios and the reference module. A peer's failing run is the
# catalogue's finding about that peer (the matrix and the failures section show it; the same runs fail on
# the real driver, docs/conformance.md), so runs of the peers alone failing leave the job green, saying so.
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
status=0
build/bin/gilsan suite "$root/scenarios" --junit build/suite-junit.xml --json build/suite-results.json \
  "${python_env[@]}" "$@" || status=$?
((status == 1)) || exit "$status"
python3 - build/suite-results.json <<'PY'
import json, sys
peers = {"cupy", "cuda-core", "cuda-bindings", "numba-cuda"}
failed = [r for r in json.load(open(sys.argv[1]))["results"] if r["status"] in ("failed", "error")]
own = [r for r in failed if r["implementation"] not in peers]
if own:
    sys.exit(1)
names = sorted({r["implementation"] for r in failed})
print(f"ci/suite.sh: {len(failed)} failed runs, all of peers ({', '.join(names)}): the catalogue's findings "
      "about them; gilsan's own scenarios and the reference module passed")
PY
