#!/usr/bin/env bash
# Runs gilsan against the real driver on a GPU machine and collects the outputs for docs/results/.
# Usage: ci/gpu-run.sh OUTPUT_DIR [step...]; steps: build sim-tests suite probe watchdog (default: all).
# The GPU machine has Python 3.12 with libpython3.12.so, cmake and ninja in /opt/torch/.venv, nvcc.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: ci/gpu-run.sh OUTPUT_DIR [step...]}
shift
steps=("$@")
((${#steps[@]})) || steps=(build sim-tests suite probe)
mkdir -p "$out"
export PATH=/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
build=${GILSAN_GPU_BUILD:-/tmp/gilsan-build}
stamp() { echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"; }

for step in "${steps[@]}"; do
  log="$out/$step.txt"
  { stamp; echo "# step: $step"; } >"$log"
  case "$step" in
    build)
      GILSAN_PYTHON=/usr/bin/python3.12 "$root/ci/build.sh" "$build" >>"$log" 2>&1 ;;
    sim-tests)
      # The simulated driver's ordering/serialization tests, through the driver table, on the real driver.
      "$build/bin/gilsan_sim_tests" --driver real >>"$log" 2>&1 ;;
    suite)
      "$build/bin/gilsan" suite "$root/scenarios" --driver real --junit "$out/suite-junit.xml" >>"$log" 2>&1
      "$build/bin/gilsan" suite "$root/scenarios" --driver real --python-env /opt/torch/.venv --filter cupy >>"$log" 2>&1 ;;
    probe)
      "$build/bin/gilsan-probe" --driver real -o "$out/probe-profile.json" --markdown "$out/probe.md" >>"$log" 2>&1 ;;
    *) echo "unknown step $step" >>"$log" ;;
  esac
  echo "# exit: $?" >>"$log"
done
