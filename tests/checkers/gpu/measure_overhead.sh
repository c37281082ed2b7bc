#!/usr/bin/env bash
# The injected sanitizer's overhead per host function on a GPU machine: gilsan_host_function_overhead
# (20,000 empty native host functions on one stream) in five configurations, interleaved round by
# round so that a slow spell of the machine hits every configuration alike:
#   plain         no injection
#   launch-floor  libgilsan_cupti_floor.so subscribed to the launch and synchronize entry points only,
#                 its callback doing nothing: CUPTI's own cost to any tool that sees launches
#   floor         the same subscribed to every driver and runtime call, as libgilsan_inject.so is
#   wrap-floor    launch-floor plus the least a wrapper does: a heap {function, data} and a trampoline
#   inject        libgilsan_inject.so (CUPTI's callbacks feed it)
#   forward       gilsan's forwarding libcuda.so.1 in front of the real one, nobody observing: its own cost
#   forward-inject  the forwarding driver with libgilsan_inject.so, which then takes its events from
#                 the forwarding driver's observer instead of CUPTI (what `gilsan run` does)
#   baseline1...  other builds of libgilsan_inject.so, when GILSAN_BASELINE_INJECT lists them (paths
#                 separated by ':'; e.g. the last commit's, to see what a change did)
# Each round is run twice: with the scheduler free to place the threads, and pinned (taskset) to four
# CPUs near the GPU, which removes most of the run-to-run spread that thread placement causes.
# Usage: measure_overhead.sh BUILD_DIR OUTPUT_FILE [ROUNDS (default 9)]
# OUTPUT_FILE gets one line per run; summarize_overhead.py prints the table.
set -u
build=${1:?usage: measure_overhead.sh BUILD_DIR OUTPUT_FILE [ROUNDS]}
output=${2:?usage: measure_overhead.sh BUILD_DIR OUTPUT_FILE [ROUNDS]}
rounds=${3:-9}
program=$build/bin/gilsan_host_function_overhead
inject=$build/checkers/inject/libgilsan_inject.so
floor=$(find "$build" -name libgilsan_cupti_floor.so | head -1)
errors=${output%.txt}.err
[[ -x $program && -f $inject && -f $floor ]] || { echo "measure_overhead: $build lacks the programs" >&2; exit 2; }
# The forwarding driver as libcuda.so.1 in a folder of its own, in front of the real driver.
shim=$build/harness/cudashim/libgilsan_cudashim.so
real_libcuda=$(ldconfig -p | awk '/libcuda\.so\.1 /{print $NF; exit}')
forward_dir=$(mktemp -d)
trap 'rm -rf "$forward_dir"' EXIT
[[ -f $shim && -n $real_libcuda ]] && ln -s "$shim" "$forward_dir/libcuda.so.1"

# The GPU's NUMA-local CPUs (sysfs), else the first ones; the first four of them.
near_gpu_cpus() {
  local bus list
  bus=$(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader 2>/dev/null | head -1 | tr 'A-F' 'a-f')
  bus=${bus#0000}  # nvidia-smi writes an 8-digit domain, sysfs a 4-digit one
  list=$(cat "/sys/bus/pci/devices/$bus/local_cpulist" 2>/dev/null || echo "0-3")
  python3 - "$list" <<'PY'
import sys
cpus = []
for part in sys.argv[1].split(","):
    low, _, high = part.partition("-")
    cpus += range(int(low), int(high or low) + 1)
print(",".join(map(str, cpus[:4])))
PY
}
pinned_cpus=$(near_gpu_cpus)
{
  echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
  echo "# $(nproc) CPUs: $(lscpu | grep -m1 'Model name' | sed 's/  */ /g'); pinned runs on CPUs $pinned_cpus"
  echo "# $(lscpu | grep -E '^(Socket|NUMA node)' | sed 's/  */ /g' | tr '\n' ';')"
} >"$output"
: >"$errors"

# The command of a configuration, in `command`.
command_of() {
  case $1 in
    plain) command=(env) ;;
    launch-floor) command=(env GILSAN_CUPTI_FLOOR=launch CUDA_INJECTION64_PATH="$floor") ;;
    floor) command=(env CUDA_INJECTION64_PATH="$floor") ;;
    wrap-floor) command=(env GILSAN_CUPTI_FLOOR=wrap CUDA_INJECTION64_PATH="$floor") ;;
    inject) command=(env CUDA_INJECTION64_PATH="$inject") ;;
    forward) command=(env LD_LIBRARY_PATH="$forward_dir" GILSAN_REAL_LIBCUDA="$real_libcuda") ;;
    forward-inject) command=(env LD_LIBRARY_PATH="$forward_dir" GILSAN_REAL_LIBCUDA="$real_libcuda"
                             CUDA_INJECTION64_PATH="$inject") ;;
    baseline*) command=(env CUDA_INJECTION64_PATH="${baselines[${1#baseline} - 1]}") ;;
  esac
  command+=("$program" --count 20000)
}

configs=(plain launch-floor floor wrap-floor inject)
[[ -e $forward_dir/libcuda.so.1 ]] && configs+=(forward forward-inject)
baselines=()
[[ -n ${GILSAN_BASELINE_INJECT:-} ]] && IFS=: read -r -a baselines <<<"$GILSAN_BASELINE_INJECT"
for ((i = 0; i < ${#baselines[@]}; i++)); do
  [[ -f ${baselines[i]} ]] || { echo "measure_overhead: no ${baselines[i]}" >&2; exit 2; }
  configs+=("baseline$((i + 1))")
  echo "# baseline$((i + 1)): ${baselines[i]}" >>"$output"
done
for ((round = 1; round <= rounds; round++)); do
  for placement in free pinned; do
    pin=()
    [[ $placement == pinned ]] && pin=(taskset -c "$pinned_cpus")
    for config in "${configs[@]}"; do
      command_of "$config"
      line=$("${pin[@]}" "${command[@]}" 2>>"$errors") ||
        { echo "measure_overhead: $config ($placement) failed, see $errors" >&2; exit 1; }
      echo "round=$round placement=$placement config=$config $line" >>"$output"
    done
  done
done

# libgilsan_inject.so's own time (GILSAN_OPTIONS stats=1, which adds clock reads), three runs: what
# of its overhead is its own code, and what is CUPTI's or the driver's reaction to it.
for ((run = 1; run <= 3; run++)); do
  stats_err=$(mktemp)
  line=$(GILSAN_OPTIONS=stats=1 CUDA_INJECTION64_PATH="$inject" "$program" --count 20000 2>"$stats_err") ||
    { cat "$stats_err" >>"$errors"; rm -f "$stats_err"; echo "measure_overhead: the stats run failed" >&2; exit 1; }
  echo "round=$run placement=free config=inject-stats $line" >>"$output"
  echo "# inject-stats run $run: $(grep -m1 'own time' "$stats_err")" >>"$output"
  rm -f "$stats_err"
done
