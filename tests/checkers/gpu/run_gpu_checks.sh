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

# Overhead: 20,000 empty native host functions, five interleaved rounds of four configurations --
# no injection; CUPTI subscribed to every driver and runtime call with a callback that does nothing
# (libgilsan_cupti_floor.so: what any CUPTI-based tool subscribed like ours pays); the same subscribed
# only to cuLaunchHostFunc and cuStreamSynchronize; and libgilsan_inject.so -- reported as medians.
overhead=$build/bin/gilsan_host_function_overhead
floor=$build/tests/checkers/libgilsan_cupti_floor.so
[[ -f $floor ]] || floor=$(find "$build" -name libgilsan_cupti_floor.so | head -1)
: >"$out/overhead.txt"
for round in 1 2 3 4 5; do
  for config in plain floor launch-floor inject; do
    case $config in
      plain) line=$("$overhead" --count 20000 2>>"$out/overhead.err") ;;
      floor) line=$(CUDA_INJECTION64_PATH=$floor "$overhead" --count 20000 2>>"$out/overhead.err") ;;
      launch-floor) line=$(GILSAN_CUPTI_FLOOR=launch CUDA_INJECTION64_PATH=$floor "$overhead" --count 20000 \
                             2>>"$out/overhead.err") ;;
      inject) line=$(CUDA_INJECTION64_PATH=$inject "$overhead" --count 20000 2>>"$out/overhead.err") ;;
    esac || { echo "FAIL overhead ($config): see $out/overhead.err"; exit $((failed + 1)); }
    echo "round $round $config $line" | tee -a "$out/overhead.txt"
  done
done
"$python" - "$out/overhead.txt" <<'PY'
import statistics, sys
per = {}
for line in open(sys.argv[1]):
    words = line.split()
    per.setdefault(words[2], []).append(float(line.rsplit("=", 1)[1]))
median = {config: statistics.median(values) for config, values in per.items()}
for config in ("plain", "floor", "launch-floor", "inject"):
    print(f"median ns per host function, {config:12}: {median[config]:.1f}")
print(f"overhead ratio {median['inject'] / median['plain']:.2f}x (target <= 1.10x)")
print(f"CUPTI alone (empty callback), launch and synchronize only: {median['launch-floor'] / median['plain']:.2f}x")
print(f"CUPTI alone (empty callback), every call: {median['floor'] / median['plain']:.2f}x; "
      f"gilsan's handling on top of it: {median['inject'] - median['floor']:.0f} ns per host function")
PY
exit $failed
