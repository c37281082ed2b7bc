#!/usr/bin/env bash
# Runs gilsan against the real driver on a GPU machine and collects the outputs for docs/results/.
# Usage: ci/gpu-run.sh OUTPUT_DIR [step...]; steps: build sim-tests suite conformance forwarding peers pytest-plugin program
# overhead probe probe-held-by probe-loading probe-diff watchdog copy-bench inject hardening bench
# stream-lifetimes detection-latency driver-calls transparency peer-versions wheel peer-own-tests native-locks (default: build sim-tests suite probe).
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
# Debian packages carried in .debs/ (ci/gpu-deps.sh): unpacked once, found by cmake and the loader.
if compgen -G "$root/.debs/*.deb" >/dev/null; then
  while IFS= read -r assignment; do export "${assignment?}"; done < <("$root/ci/gpu-deps.sh" unpack /tmp/gilsan-deps)
fi
stamp() { echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"; }

for step in "${steps[@]}"; do
  log="$out/$step.txt"
  { stamp; echo "# step: $step"; } >"$log"
  case "$step" in
    build)
      # GILSAN_GPU_ONLY builds a subset of the parts (the GILSAN_ONLY cmake list), e.g. "driver;profile;simcuda;probe;sim".
      GILSAN_PYTHON=/usr/bin/python3.12 "$root/ci/build.sh" "$build" ${GILSAN_GPU_ONLY:+"-DGILSAN_ONLY=$GILSAN_GPU_ONLY"} \
        >>"$log" 2>&1 ;;
    sim-tests)
      # The simulated driver's ordering/serialization tests, through the driver table, on the real driver.
      "$build/bin/gilsan_sim_tests" --driver real >>"$log" 2>&1 ;;
    suite)
      # Every scenario, peers included (the venv has CuPy and cuda.core), on the real driver and on the sim,
      # then the side-by-side table.
      "$build/bin/gilsan" suite "$root/scenarios" --driver real --python-env /opt/torch/.venv \
        --junit "$out/suite-junit.xml" --json "$out/suite-real.json" >>"$log" 2>&1
      "$build/bin/gilsan" suite "$root/scenarios" --driver sim --python-env /opt/torch/.venv \
        --json "$out/suite-sim.json" >>"$log" 2>&1
      python3 "$root/tests/runner/check_parity.py" --table "$out/suite-sim.json" "$out/suite-real.json" >"$out/parity.md" 2>>"$log"
      # One archive: the device tool returns a limited number of files.
      tar -czf "$out/suite.tar.gz" -C "$out" suite-real.json suite-sim.json suite-junit.xml && \
        rm -f "$out/suite-real.json" "$out/suite-sim.json" "$out/suite-junit.xml" ;;
    conformance)
      # The conformance catalogue for every implementation the venv has, on the real driver and on the
      # sim (same packages), the real run's Markdown report, where the two differ, and the packages.
      # One run at a time on the real driver (the suite's default there: runs sharing the GPU slow each
      # other's device work past what their scenarios declare); eight at once on the sim.
      for driver in real sim; do
        jobs=(); [[ $driver == sim ]] && jobs=(--jobs 8)
        "$build/bin/gilsan" suite "$root/scenarios/conformance" --driver "$driver" --python-env /opt/torch/.venv \
          "${jobs[@]}" --json "$out/conformance-$driver.json" --markdown "$out/conformance-$driver.md" >>"$log" 2>&1
        echo "conformance on $driver: exit $?" >>"$log"
      done
      python3 "$root/tests/runner/check_parity.py" --table "$out/conformance-sim.json" "$out/conformance-real.json" \
        >"$out/conformance-parity.md" 2>>"$log"
      /opt/torch/.venv/bin/python -m pip list 2>/dev/null | grep -iE "^(cupy|cuda|numba|numpy|nvidia-cuda-runtime)" \
        >"$out/packages.txt" ;;
    forwarding)
      # The forwarding driver's own tests in front of the real driver, and what cuGetProcAddress handed out
      # unwatched in a CuPy process (GILSAN_CUDASHIM_TRACE; the child's stderr is in the report).
      GILSAN_REAL_LIBCUDA=$(ldconfig -p | awk '/libcuda\.so\.1 /{print $NF; exit}') "$build/bin/gilsan_cudashim_tests" >>"$log" 2>&1
      GILSAN_CUDASHIM_TRACE=1 "$build/bin/gilsan" run "$root/scenarios/interop/cupy_malloc_in_callback.py" \
        --driver real --python-env /opt/torch/.venv -o "$out/cupy-malloc-traced.txt" >>"$log" 2>&1
      echo "unwatched answers of cuGetProcAddress: $(grep -c 'answered .* with an unwatched function' "$out/cupy-malloc-traced.txt")" >>"$log" ;;
    peers)
      # Peers' host functions (ctypes, CuPy) through the forwarding driver, on the real driver and on the
      # sim; GILSAN_CUDASHIM_TRACE names any entry point cuGetProcAddress handed out unwatched.
      for driver in real sim; do
        GILSAN_CUDASHIM_TRACE=1 "$build/bin/gilsan" suite "$root/scenarios/ctypes" "$root/scenarios/interop" \
          --driver "$driver" --python-env /opt/torch/.venv >>"$log" 2>&1
      done ;;
    peer-versions)
      # The peers' newest releases against the venv's (issue 35): their wheels carried in .whl/
      # (ci/gpu-peer-wheels.sh download, carry .whl), the conformance catalogue for cuda.core and
      # cuda.bindings with each on the real driver, and where their outcomes differ.
      newest=$("$root/ci/gpu-peer-wheels.sh" venv /tmp/gilsan-peers-newest /opt/torch/.venv 2>>"$log")
      for side in pinned newest; do
        venv=/opt/torch/.venv; [[ $side == newest ]] && venv=$newest
        "$build/bin/gilsan" suite "$root/scenarios/conformance" --impl cuda-core,cuda-bindings --driver real \
          --python-env "$venv" --json "$out/peers-$side-real.json" >>"$log" 2>&1
        echo "conformance with the $side peers: exit $?" >>"$log"
      done
      "$build/bin/gilsan" merge "$out/peers-pinned-real.json" --compare "$out/peers-newest-real.json" \
        --markdown "$out/peer-versions-real.md" >>"$log" 2>&1
      echo "merge --compare: exit $?" >>"$log" ;;
    pytest-plugin)
      # `pytest -p gilsan.pytest` on the real driver with CuPy (tests/pytest_plugin/cupy_cases), with the
      # pytest of /opt/torch/.venv: no registry here, so without one the check says so and exits 77.
      python3 "$root/tests/pytest_plugin/check_plugin.py" --python /opt/torch/.venv/bin/python \
        --gilsan "$build/bin/gilsan" --module-dir "$build/python" --cases cupy --driver real >>"$log" 2>&1
      echo "pytest plugin (CuPy, real driver): exit $? (0 as expected, 1 not, 77 skipped: the reason is above)" >>"$log" ;;
    wheel)
      # The pip-installed gilsan (docs/installing.md, "pip") on this machine's Python: the wheel built by pip
      # from pyproject.toml, installed into a fresh virtualenv, the plugin's CuPy cases on the real driver
      # with `pytest --gilsan` (tests/pytest_plugin/check_wheel.py). No registry here: the backend, pip and the
      # pinned pytest come as wheels in .whl/wheel (ci/gpu-peer-wheels.sh wheel-tools; carry .whl), and the
      # builder is made without ensurepip.
      rm -rf /tmp/gilsan-wheel-venv
      /opt/torch/.venv/bin/python -m venv --without-pip /tmp/gilsan-wheel-venv >>"$log" 2>&1
      /opt/torch/.venv/bin/python -m pip install --quiet --ignore-installed --no-index --find-links "$root/.whl/wheel" \
        --prefix /tmp/gilsan-wheel-venv -r "$root/ci/wheel-requirements.txt" >>"$log" 2>&1
      cp -r "$root/.whl/wheel" /tmp/gilsan-wheel-venv/wheelhouse
      site=$(/opt/torch/.venv/bin/python -c "import sysconfig; print(sysconfig.get_path('purelib'))")
      python3 "$root/tests/pytest_plugin/check_wheel.py" --builder /tmp/gilsan-wheel-venv --source "$root" \
        --build-dir /tmp/gilsan-wheel-build --cases cupy --driver real --site-packages "$site" >>"$log" 2>&1
      echo "pip-installed gilsan (CuPy, real driver): exit $? (0 as expected, 1 not, 77 skipped: the reason is above)" >>"$log" ;;
    peer-own-tests)
      # cuda.core's own stream, event, graph and memory test files (fetched at a pinned commit into
      # .peer-tests/cuda-core, git-ignored; carry it) with this machine's packages: plainly on the real driver,
      # under `gilsan run` on the real driver, on the sim, and on the sim running unknown kernels as empty
      # work (GILSAN_SIM_KERNELS=empty); then the per-test tables.
      checkout=$root/.peer-tests/cuda-core
      python3 "$root/ci/peer-own-tests.py" run --checkout "$checkout" --python /opt/torch/.venv/bin/python \
        --gilsan "$build/bin/gilsan" --out "$out/peer-own-tests" --driver plain --driver real --driver sim --driver sim-empty-kernels \
        cuda_core/tests/test_stream.py cuda_core/tests/test_event.py cuda_core/tests/graph cuda_core/tests/memory \
        >>"$log" 2>&1
      for other in real sim sim-empty-kernels; do
        [[ -f $out/peer-own-tests/junit-$other.xml ]] || continue
        python3 "$root/ci/peer-own-tests.py" compare "$out/peer-own-tests/junit-plain.xml" \
          "$out/peer-own-tests/junit-$other.xml" --label-a plain --label-b "$other" \
          --markdown "$out/peer-own-tests/plain-vs-$other.md" --tsv "$out/peer-own-tests/plain-vs-$other.tsv" >>"$log" 2>&1
      done
      cp "$checkout/COMMIT" "$out/peer-own-tests/COMMIT"
      # One archive: the device tool returns a limited number of files.
      tar -czf "$out/peer-own-tests.tar.gz" -C "$out" peer-own-tests && rm -rf "$out/peer-own-tests"
      /opt/torch/.venv/bin/python -m pip list 2>/dev/null | grep -iE "^(cupy|cuda|numba|numpy|pytest)" >"$out/packages.txt" ;;
    native-locks)
      # docs/native-locks.md on the real driver: scenarios/native on real and sim and their parity table; an
      # unmodified torch program whose host function allocates while torch.cuda.empty_cache holds the
      # caching allocator's mutex, under `gilsan run` (the report names the lock), and fixed; the
      # interposer's uncontended cost on this machine's CPU.
      "$build/bin/gilsan" suite "$root/scenarios/native" --driver real --python-env /opt/torch/.venv \
        --json "$out/native-real.json" >>"$log" 2>&1
      "$build/bin/gilsan" suite "$root/scenarios/native" --driver sim --python-env /opt/torch/.venv \
        --json "$out/native-sim.json" >>"$log" 2>&1
      python3 "$root/tests/runner/check_parity.py" --table "$out/native-sim.json" "$out/native-real.json" \
        >"$out/native-parity.md" 2>>"$log"
      app=$root/tests/nativelocks/torch_empty_cache_app.py
      for mode in free event; do
        "$build/bin/gilsan" run --driver real --timeout 120 --report full -o "$out/torch-$mode-report.txt" \
          -- /opt/torch/.venv/bin/python "$app" "$mode" >>"$log" 2>&1
        echo "torch program, $mode: exit $?" >>"$log"
        "$build/bin/gilsan" run --driver real --timeout 120 -- /opt/torch/.venv/bin/python "$app" "$mode" \
          --synchronize-first >>"$log" 2>&1
        echo "torch program, $mode, synchronized first: exit $?" >>"$log"
      done
      if [[ -x $build/bin/gilsan_native_lock_bench ]]; then
        python3 "$root/tests/nativelocks/native_lock_ratios.py" --run "$build/bin/gilsan_native_lock_bench" \
          --preload "$build/harness/nativelocks/libgilsan_native_locks.so" --repetitions 10 --min-time 0.2 \
          >"$out/native-lock-bench.md" 2>>"$log"
      fi
      /opt/torch/.venv/bin/python -m pip list 2>/dev/null | grep -iE "^(cupy|cuda|numba|numpy|torch)" >"$out/packages.txt" ;;
    program)
      # `gilsan run -- COMMAND` on an unmodified CuPy program that hangs, and on the same program fixed.
      app=$root/tests/runner/data/programs/cupy_inversion_app.py
      "$build/bin/gilsan" run --driver real --expect deadlock:gil-driver-inversion --dot "$out/program-hang.dot" \
        -- /opt/torch/.venv/bin/python "$app" >>"$log" 2>&1
      echo "hanging program: exit $?" >>"$log"
      "$build/bin/gilsan" run --driver real -- /opt/torch/.venv/bin/python "$app" --release-gil >>"$log" 2>&1
      echo "fixed program: exit $?" >>"$log" ;;
    overhead)
      # The injected sanitizer's cost per host function, CUPTI-fed and fed by the forwarding driver.
      "$root/tests/checkers/gpu/measure_overhead.sh" "$build" "$out/overhead-runs.txt" 5 >>"$log" 2>&1
      python3 "$root/tests/checkers/gpu/summarize_overhead.py" "$out/overhead-runs.txt" >"$out/overhead-summary.txt" 2>>"$log" ;;
    probe)
      # The shipped profile carries over any cell the probe cannot measure here.
      "$build/bin/gilsan-probe" --driver real --profile "$root/profiles/h200-580.159.04.json" -o "$out/probe-profile.json" \
        --markdown "$out/probe.md" >>"$log" 2>&1 ;;
    probe-held-by)
      # The outside matrix with the held host function enqueued each way (issue 14: does
      # cuStreamAddCallback hold the driver's lock where cuLaunchHostFunc does not?), then each against
      # the cuLaunchHostFunc run of the same minute.
      for kind in launch-host-func stream-add-callback graph-host-node; do
        "$build/bin/gilsan-probe" --driver real --profile "$root/profiles/h200-580.159.04.json" --held-by "$kind" \
          -o "$out/probe-$kind.json" --markdown "$out/probe-$kind.md" >>"$log" 2>&1
        echo "probe --held-by $kind: exit $?" >>"$log"
      done
      for kind in stream-add-callback graph-host-node; do
        echo "--- launch-host-func -> $kind" >>"$log"
        "$build/bin/gilsan-probe" --diff "$out/probe-launch-host-func.json" "$out/probe-$kind.json" >>"$log" 2>&1
        echo "diff: exit $?" >>"$log"
      done ;;
    probe-loading)
      # Issue 14: the probe measures the call matrices under CUDA_MODULE_LOADING=LAZY and =EAGER and every
      # enqueued-work cell in both modes (the cudart first launch through the toolkit's libcudart), diffed
      # against the shipped profile; then the deadlock catalogue for the reference (its scenarios pin their
      # loading mode in the header) on both drivers, side by side; and the sim tests' enqueued-work and
      # EAGER-table cases on the real driver against the shipped profile.
      cudart=(); [[ -e /usr/local/cuda/lib64/libcudart.so.13 ]] && cudart=(--cudart /usr/local/cuda/lib64/libcudart.so.13)
      "$build/bin/gilsan-probe" --driver real --profile "$root/profiles/h200-580.159.04.json" "${cudart[@]}" \
        -o "$out/probe-loading.json" --markdown "$out/probe-loading.md" >>"$log" 2>&1
      echo "probe: exit $?" >>"$log"
      "$build/bin/gilsan-probe" --diff "$root/profiles/h200-580.159.04.json" "$out/probe-loading.json" >>"$log" 2>&1
      echo "diff against the shipped profile: exit $?" >>"$log"
      for driver in real sim; do
        "$build/bin/gilsan" suite "$root/scenarios/conformance/deadlock" --impl reference --driver "$driver" \
          --json "$out/deadlock-$driver.json" >>"$log" 2>&1
        echo "deadlock catalogue on $driver: exit $?" >>"$log"
      done
      python3 "$root/tests/runner/check_parity.py" --table "$out/deadlock-sim.json" "$out/deadlock-real.json" \
        >"$out/deadlock-parity.md" 2>>"$log"
      echo "parity: exit $?" >>"$log"
      "$build/bin/gilsan_sim_tests" --driver real --gtest_filter='*EnqueuedWork*:*Eager*' >>"$log" 2>&1
      echo "gilsan_sim_tests --driver real (enqueued work, EAGER tables): exit $?" >>"$log" ;;
    probe-diff)
      # Did this driver change anything against the shipped profile? (exit 1 when it did)
      "$build/bin/gilsan-probe" --diff "$root/profiles/h200-580.159.04.json" "$out/probe-profile.json" >>"$log" 2>&1 ;;
    watchdog)
      # Each deadlock scenario the real driver can produce, with its watchdog report (text, JSON, DOT);
      # then the CuPy inversion, whose GIL waits are inferred from native frames.
      mkdir -p "$out/watchdog"
      for scenario in "$root"/scenarios/deadlock/*.py "$root"/scenarios/watchdog/*.py; do
        grep -q "^# gilsan: drivers = .*real" "$scenario" || continue
        name=$(basename "$scenario" .py)
        "$build/bin/gilsan" run "$scenario" --driver real --report text -o "$out/watchdog/$name.txt" \
          --dot "$out/watchdog/$name.dot" >>"$log" 2>&1
        echo "$name: exit $?" >>"$log"
        "$build/bin/gilsan" run "$scenario" --driver real --report json -o "$out/watchdog/$name.json" >>"$log" 2>&1
      done
      for name in cupy_gil_inversion; do
        scenario=$root/scenarios/interop/$name.py
        GILSAN_WATCHDOG_TRACE=$out/watchdog/$name.trace \
          "$build/bin/gilsan" run "$scenario" --driver real --python-env /opt/torch/.venv --timeout 8 --report text \
          -o "$out/watchdog/$name.txt" --dot "$out/watchdog/$name.dot" >>"$log" 2>&1
        echo "$name: exit $?" >>"$log"
        "$build/bin/gilsan" run "$scenario" --driver real --python-env /opt/torch/.venv --timeout 8 --report json \
          -o "$out/watchdog/$name.json" >>"$log" 2>&1
      done
      # One archive: the device tool returns a limited number of files.
      tar -czf "$out/watchdog.tar.gz" -C "$out" watchdog && rm -rf "$out/watchdog" ;;
    copy-bench)
      # gilsan.copy_to into a pageable NumPy array (the venv's interpreter has NumPy; same Python 3.12 ABI).
      GILSAN_DRIVER=real PYTHONPATH="$build/python" /opt/torch/.venv/bin/python \
        "$root/tests/pymodule/bench_copy_to.py" >"$out/copy-bench.md" 2>>"$log" ;;
    inject)
      # The injected sanitizer on CuPy / cuda.core programs, and its overhead per host function.
      "$root/tests/checkers/gpu/run_gpu_checks.sh" "$build" /opt/torch/.venv/bin/python >>"$log" 2>&1
      tar -czf "$out/inject.tar.gz" -C "$build" gpu-checks ;;
    hardening)
      # docs/reliability.md on the real driver: the child faults (classified, nothing left), --max-rss, an
      # unusable driver as one line before anything runs, and libgilsan_inject.so in a program that
      # knows nothing of gilsan (the bare real driver: the CUPTI path).
      python3 "$root/tests/runner/check_faults.py" "$build/bin/gilsan" "$root/tests/runner/data/faults" real >>"$log" 2>&1
      echo "faults on real: exit $?" >>"$log"
      "$build/bin/gilsan" run "$root/tests/runner/data/memory/grows_without_bound.py" --driver real --max-rss 1G >>"$log" 2>&1
      echo "--max-rss 1G on real: exit $?" >>"$log"
      # What a CUDA process holds resident before the scenario does anything: what a limit must leave room for.
      "$build/bin/gilsan" run "$root/tests/runner/data/scenarios/pass.py" --driver real --max-rss 64G --report json \
        -o "$out/pass-real-rss.json" >>"$log" 2>&1
      echo "pass.py on real, peak resident bytes: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["peak_resident_bytes"])' "$out/pass-real-rss.json")" >>"$log"
      GILSAN_SIM_FAIL=cuInit=CUDA_ERROR_NO_DEVICE LD_LIBRARY_PATH="$build/tests/runner/sim-as-real" \
        "$build/bin/gilsan" suite "$root/tests/runner/data/scenarios" --driver real >>"$log" 2>&1
      echo "unusable driver: exit $? (2 expected, one line above)" >>"$log"
      for flag in "" --clean; do
        CUDA_INJECTION64_PATH="$build/checkers/inject/libgilsan_inject.so" GILSAN_REPORT="$out/unrelated${flag}.json" \
          /usr/bin/python3.12 "$root/tests/runner/data/programs/unrelated_app_with_injected_sanitizer.py" $flag >>"$log" 2>&1
        echo "unrelated program ${flag:-(calls the driver in its host function)}: exit $?" >>"$log"
      done
      # A device reset with host functions queued (docs/reliability.md, "Driver faults"): the measurement,
      # then the scenario that holds the reference module to it.
      for which in reset destroy; do
        PYTHONPATH="$build/python" /usr/bin/python3.12 \
          "$root/docs/results/2026-12-04-0950Z-h200-580.159.04-hardening/reset_experiment.py" $which >>"$log" 2>&1
        echo "reset experiment ($which): exit $?" >>"$log"
      done
      "$build/bin/gilsan" run "$root/tests/runner/data/driver_faults/context_reset_runs_queued_host_functions.py" \
        --driver real >>"$log" 2>&1
      echo "context reset scenario on real: exit $?" >>"$log"
      # The CPU machine's hardening tests, on this machine's build.
      ctest --test-dir "$build" -R "runner\.(usage|malformed|injected|faults|security|driver_faults|soak)|fuzz\." \
        --output-on-failure -j8 >>"$log" 2>&1
      echo "hardening ctests: exit $?" >>"$log" ;;
    bench)
      # `gilsan bench` (docs/performance.md): the reference host_launch against the raw driver and the peers.
      "$build/bin/gilsan" bench --driver real --python-env /opt/torch/.venv --json "$out/bench.json" \
        --markdown "$out/bench.md" --svg "$out/bench.svg" >>"$log" 2>&1 ;;
    stream-lifetimes)
      # Resident memory and time per stream lifetime, plain and under the injected sanitizer (issue 32's
      # flat-memory target, ci/stream-lifetimes.py), on the real driver.
      python3 "$root/ci/stream-lifetimes.py" --build "$build" --driver real --lifetimes "${GILSAN_LIFETIMES:-1000000}" \
        --checkpoints 10 >>"$log" 2>&1
      echo "stream-lifetimes: exit $?" >>"$log" ;;
    detection-latency)
      # Onset to report per deadlock scenario the real driver can produce (tests/runner/watchdog_latency.py):
      # certain cycles after their short confirmation, the others after the quiet period.
      mapfile -t scenarios < <(grep -l "^# gilsan: drivers = .*real" "$root"/scenarios/deadlock/*.py)
      python3 "$root/tests/runner/watchdog_latency.py" "$build/bin/gilsan" --runs "${GILSAN_LATENCY_RUNS:-20}" \
        --driver real "${scenarios[@]}" >>"$log" 2>&1
      echo "detection-latency: exit $?" >>"$log" ;;
    driver-calls)
      # What the forwarding driver adds to each call and host function, side by side with the real driver
      # in one process, under `gilsan run`'s board as in a `--sanitize off` child (tests/cudashim/driver_call_bench.cpp).
      if [[ -x $build/bin/gilsan_driver_call_bench ]]; then
        "$build/bin/gilsan" run --driver real --sanitize off -- "$build/bin/gilsan_driver_call_bench" \
          --forwarding "$build/harness/cudashim/libgilsan_cudashim.so" --benchmark_repetitions=5 \
          --benchmark_enable_random_interleaving=true --benchmark_out="$out/driver-calls.json" \
          --benchmark_out_format=json >>"$log" 2>&1 &&
          python3 "$root/tests/cudashim/driver_call_ratios.py" "$out/driver-calls.json" --markdown "$out/driver-calls.md" >>"$log" 2>&1
      else
        echo "gilsan_driver_call_bench was not built: no Google Benchmark (ci/gpu-deps.sh download, carry .debs)" >>"$log"
        false
      fi ;;
    transparency)
      # Transparency on the real driver (docs/reliability.md): the transparency set plainly and under
      # `gilsan run --sanitize on` through the forwarding driver; the wrapped entry points' random
      # sequences on the bare real driver and through the forwarding driver; issue 31's pytest file
      # plainly, under gilsan run and under the pytest plugin.
      real=$(ldconfig -p | awk '/libcuda\.so\.1 .*x86-64/ {print $NF; exit}')
      folder=$(mktemp -d /tmp/gilsan-real-driver-XXXXXX)
      ln -s "$real" "$folder/libcuda.so.1"
      echo "real driver: $real" >>"$log"
      GILSAN_NATIVE_SCENARIO_LIBRARY=$build/scenarios/libgilsan_native_scenario.so \
      python3 "$root/tests/transparency/check_transparency.py" --gilsan "$build/bin/gilsan" --driver-folder "$folder" \
        --python /opt/torch/.venv/bin/python --module-path "$build/python" --impl-path "$root/harness/impl" \
        --programs "$root/tests/transparency/programs" --scenarios "$root/scenarios" --impl cuda-core,cuda-bindings \
        --conformance "$root/tests/runner/data/parity/conformance-real-h200-580.159.04.json" --jobs 1 >>"$log" 2>&1
      echo "transparency set: exit $?" >>"$log"
      python3 "$root/tests/cudashim/check_wrapper_sequences.py" "$build/bin/gilsan" "$build/bin/gilsan_wrapper_sequences" \
        "$folder" 1 300 60 >>"$log" 2>&1
      echo "wrapper sequences: exit $?" >>"$log"
      file=$root/tests/transparency/pytest/test_cuda_core_graph_callbacks.py
      (cd /tmp && /opt/torch/.venv/bin/python -m pytest -q -p no:cacheprovider "$file") >>"$log" 2>&1
      echo "pytest plainly: exit $?" >>"$log"
      (cd /tmp && "$build/bin/gilsan" run --driver real --sanitize on -- /opt/torch/.venv/bin/python -m pytest -q \
        -p no:cacheprovider "$file") >>"$log" 2>&1
      echo "pytest under gilsan run: exit $?" >>"$log"
      (cd /tmp && PYTHONPATH=$build/python /opt/torch/.venv/bin/python -m pytest -q -p no:cacheprovider -p gilsan.pytest \
        --gilsan-driver=real --gilsan-executable "$build/bin/gilsan" "$file") >>"$log" 2>&1
      echo "pytest under the plugin: exit $?" >>"$log"
      # And on the simulated driver, with the same packages: the same three outcomes.
      (cd /tmp && "$build/bin/gilsan" run --driver sim --sanitize on -- /opt/torch/.venv/bin/python -m pytest -q \
        -p no:cacheprovider "$file") >>"$log" 2>&1
      echo "pytest under gilsan run on the simulated driver: exit $?" >>"$log"
      rm -rf "$folder"
      /opt/torch/.venv/bin/python -m pip list 2>/dev/null | grep -iE "^(cupy|cuda|numba|numpy|pytest)" >"$out/packages.txt" ;;
    *) echo "unknown step $step" >>"$log" ;;
  esac
  echo "# exit: $?" >>"$log"
done
