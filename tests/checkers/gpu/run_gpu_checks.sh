#!/usr/bin/env bash
# run_gpu_checks.sh BUILD_DIR [PYTHON]: runs the injected sanitizer on the GPU targets of this folder
# and the host-function overhead measurement. Needs a GPU, CuPy and cuda.core for PYTHON.
# Each check prints PASS or FAIL with what it saw; reports are kept in BUILD_DIR/gpu-checks/.
# Exit status: the number of failed checks.
set -u
build=$(cd "${1:?usage: run_gpu_checks.sh BUILD_DIR [PYTHON]}" && pwd)
python=${2:-python3}
here=$(cd "$(dirname "$0")" && pwd)
inject=$build/checkers/inject/libgilsan_inject.so
out=$build/gpu-checks
mkdir -p "$out"
failed=0

# check NAME EXPECTED_CHECKER SCRIPT: exit status 66 (the sanitizer's) and EXPECTED_CHECKER in the JSON.
check() {
  local name=$1 expected=$2 script=$3 status
  rm -f "$out/$name.json"
  CUDA_INJECTION64_PATH=$inject GILSAN_REPORT=$out/$name.json \
    timeout 300 "$python" "$here/$script" >"$out/$name.out" 2>"$out/$name.err"
  status=$?
  if [[ $status -eq 66 ]] && "$python" - "$out/$name.json" "$expected" <<'PY'
import json, sys
document = json.load(open(sys.argv[1]))
sys.exit(0 if any(r["checker"] == sys.argv[2] for r in document["reports"]) else 1)
PY
  then
    echo "PASS $name: $expected reported ($(grep -m1 'gilsan: injected' "$out/$name.err"))"
  else
    echo "FAIL $name: exit status $status, expected 66 and $expected; see $out/$name.err"
    failed=$((failed + 1))
  fi
}

check cupy_pydll_sync lock-order-cycle cupy_callback_then_pydll_sync.py
check cupy_runtime_in_callback cuda-call-in-host-function cupy_callback_calls_runtime.py
check cuda_core_graph_callback lock-order-cycle cuda_core_graph_callback.py

overhead=$build/bin/gilsan_host_function_overhead
plain=$("$overhead" --count 20000) || { echo "FAIL overhead: $plain"; exit $((failed + 1)); }
injected=$(CUDA_INJECTION64_PATH=$inject "$overhead" --count 20000 2>"$out/overhead.err") \
  || { echo "FAIL overhead with injection: see $out/overhead.err"; exit $((failed + 1)); }
echo "overhead without injection: $plain"
echo "overhead with injection:    $injected"
"$python" - "$plain" "$injected" <<'PY'
import sys
def per(line): return float(line.rsplit("=", 1)[1])
ratio = per(sys.argv[2]) / per(sys.argv[1])
print(f"overhead ratio {ratio:.2f}x (target <= 1.10x)")
PY
exit $failed
