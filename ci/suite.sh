#!/usr/bin/env bash
# The main job: builds gilsan and runs the whole scenario suite on the default driver (auto: the real
# driver when a GPU is usable, else the simulated one). Extra arguments go to `gilsan suite`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
"$root/ci/install-deps.sh"
ci/build.sh build
exec build/bin/gilsan suite "$root/scenarios" --junit build/suite-junit.xml "$@"
