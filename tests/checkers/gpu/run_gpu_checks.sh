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

# check NAME EXPECTED_CHECKER PROGRAM: exit status 66 (the sanitizer's) and EXPECTED_CHECKER in the
# JSON. PROGRAM is a Python script of this folder (*.py) or a native program of BUILD_DIR/bin.
check() {
  local name=$1 expected=$2 program=$3 status
  local -a command=("$python" "$here/$program")
  [[ $program == *.py ]] || command=("$build/bin/$program")
  rm -f "$out/$name.json"
  CUDA_INJECTION64_PATH=$inject GILSAN_REPORT=$out/$name.json \
    timeout 300 "${command[@]}" >"$out/$name.out" 2>"$out/$name.err"
  status=$?
  # What the program printed and what the plugin reported, for the record.
  echo "  $name printed: $(head -c 300 "$out/$name.out" | tr '\n' ' ')"
  "$python" - "$out/$name.json" <<'PY'
import json, sys
try:
    reports = json.load(open(sys.argv[1]))["reports"]
except (OSError, ValueError, KeyError) as error:
    sys.exit(print(f"  no readable report: {error}"))
for report in reports:
    call = report.get("call") or {}
    said = f" {call.get('entry_point')} -> {call.get('result_name') or call.get('result')}" if call else ""
    print(f"  reported: {report['checker']}{said}")
PY
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
# Not a check: on driver 580.159.04 CUPTI delivered no driver-API callback for the driver calls a host
# function made on the driver's callback thread (neither the allowed cuStreamQuery nor the refused
# cuMemAlloc), so the plugin cannot see them; the runtime-API callbacks of the same thread arrive.
# Recorded at each run so that a driver that delivers them shows up here.
observe() {
  local name=$1 program=$2 status
  CUDA_INJECTION64_PATH=$inject GILSAN_REPORT=$out/$name.json \
    timeout 300 "$build/bin/$program" >"$out/$name.out" 2>"$out/$name.err"
  status=$?
  echo "OBSERVED $name: exit status $status; $(head -c 300 "$out/$name.out" | tr '\n' ' ')"
  "$python" - "$out/$name.json" <<'PY'
import json, sys
calls = [r["call"]["entry_point"] for r in json.load(open(sys.argv[1]))["reports"] if r.get("call")]
print("  driver calls the plugin saw inside the host function:", ", ".join(calls) if calls else "none")
PY
}
observe native_driver_call_in_callback gilsan_host_function_calls_driver
check native_runtime_call_in_callback cuda-call-in-host-function gilsan_host_function_calls_runtime

# Overhead: 20,000 empty native host functions in five configurations, nine interleaved rounds, free
# and pinned (measure_overhead.sh says which); the table last.
"$here/measure_overhead.sh" "$build" "$out/overhead.txt" || { echo "FAIL overhead: see $out/overhead.err"; exit $((failed + 1)); }
"$python" "$here/summarize_overhead.py" "$out/overhead.txt" | tee "$out/overhead-summary.txt"
exit $failed
