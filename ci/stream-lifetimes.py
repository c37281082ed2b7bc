#!/usr/bin/env python3
"""Memory and time per stream lifetime, without the sanitizer and under the injected one, side by side.

What a service does per request: create a stream, launch one Python host function on it (ctypes), wait
for it without the GIL, destroy the stream. A sanitizer that keeps something of every stream that ever
lived grows until the service is killed, and slows down as it walks what it kept (issue 32). This runs
that loop in two processes, one plain and one with libgilsan_inject.so injected
(CUDA_INJECTION64_PATH), and prints at each checkpoint the resident memory and the microseconds per
lifetime since the last checkpoint, then how both changed from the first checkpoint to the last.

A benchmark, not a test: it prints, and exits non-zero only when a run fails. The target (issue 32):
resident memory within 5% from the first checkpoint to the last, over 100,000 to 1,000,000 lifetimes.

Usage: ci/stream-lifetimes.py [--build DIR] [--driver sim|real] [--lifetimes N] [--checkpoints K]
On the simulated driver (the default) a temporary folder whose libcuda.so.1 is gilsan's simulated
driver stands in for the real one; --driver real uses the machine's libcuda.so.1.
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile

PROGRAM = r'''
import ctypes, json, os, sys, time
lifetimes, checkpoints = int(sys.argv[1]), int(sys.argv[2])
cuda = ctypes.CDLL("libcuda.so.1")  # calls that release the GIL, as a well-behaved binding's do
def check(result, what):
    if result != 0:
        sys.exit(f"{what} failed: CUresult {result}")
check(cuda.cuInit(0), "cuInit")
device, context = ctypes.c_int(), ctypes.c_void_p()
check(cuda.cuDeviceGet(ctypes.byref(device), 0), "cuDeviceGet")
check(cuda.cuDevicePrimaryCtxRetain(ctypes.byref(context), device), "cuDevicePrimaryCtxRetain")
check(cuda.cuCtxSetCurrent(context), "cuCtxSetCurrent")
cuda.cuLaunchHostFunc.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
cuda.cuStreamSynchronize.argtypes = [ctypes.c_void_p]
cuda.cuStreamDestroy_v2.argtypes = [ctypes.c_void_p]
ran = [0]
def count(_):
    ran[0] += 1
host_function = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(count)
page = os.sysconf("SC_PAGE_SIZE")
every = lifetimes // checkpoints
started = time.perf_counter()
for done in range(1, lifetimes + 1):
    stream = ctypes.c_void_p()
    check(cuda.cuStreamCreate(ctypes.byref(stream), 1), "cuStreamCreate")
    check(cuda.cuLaunchHostFunc(stream, host_function, None), "cuLaunchHostFunc")
    check(cuda.cuStreamSynchronize(stream), "cuStreamSynchronize")
    check(cuda.cuStreamDestroy_v2(stream), "cuStreamDestroy")
    if done % every == 0:
        now = time.perf_counter()
        with open("/proc/self/statm") as statm:
            resident = int(statm.read().split()[1]) * page
        print(json.dumps({"lifetimes": done, "rss_mib": resident / 2**20,
                          "us_each": (now - started) * 1e6 / every}), flush=True)
        started = now
if ran[0] != lifetimes:
    sys.exit(f"{ran[0]} host functions ran of {lifetimes}")
'''


def run(label, command, environment, lifetimes, checkpoints):
    """One process of the loop; its checkpoints, or an exit with the process's own words."""
    print(f"stream-lifetimes: {label}: {lifetimes:,} lifetimes ...", file=sys.stderr, flush=True)
    finished = subprocess.run(command + [str(lifetimes), str(checkpoints)], env=environment,
                              capture_output=True, text=True, timeout=3600, check=False)
    rows = [json.loads(line) for line in finished.stdout.splitlines() if line.startswith("{")]
    # The injected sanitizer exits 66 when it reported something: a report is a finding, not a failure
    # of the measurement, but it is said.
    if finished.returncode not in (0, 66) or len(rows) != checkpoints:
        sys.exit(f"stream-lifetimes: {label} failed (exit {finished.returncode}):\n"
                 f"{finished.stderr.strip() or finished.stdout.strip()}")
    if finished.returncode == 66:
        print(f"stream-lifetimes: {label}: the sanitizer reported something:\n{finished.stderr.strip()}",
              file=sys.stderr)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=str(pathlib.Path(__file__).resolve().parent.parent / "build"))
    parser.add_argument("--driver", choices=("sim", "real"), default="sim")
    parser.add_argument("--lifetimes", type=int, default=1_000_000)
    parser.add_argument("--checkpoints", type=int, default=10)
    parser.add_argument("--python", default=sys.executable)
    options = parser.parse_args()
    if options.checkpoints < 2 or options.lifetimes < options.checkpoints:
        parser.error("--checkpoints must be at least 2 and at most --lifetimes")
    build = pathlib.Path(options.build).resolve()  # the symlink below must not be relative
    inject = build / "checkers/inject/libgilsan_inject.so"
    simulated = build / "harness/simcuda/libgilsan_simcuda.so"
    for needed in [inject] + ([simulated] if options.driver == "sim" else []):
        if not needed.is_file():
            parser.error(f"{needed}: not built (ci/build.sh {build})")
    with tempfile.TemporaryDirectory(prefix="gilsan-stream-lifetimes-") as folder:
        program = pathlib.Path(folder) / "stream_lifetimes.py"
        program.write_text(PROGRAM)
        environment = dict(os.environ)
        environment.pop("CUDA_INJECTION64_PATH", None)
        if options.driver == "sim":
            (pathlib.Path(folder) / "libcuda.so.1").symlink_to(simulated)
            environment["LD_LIBRARY_PATH"] = folder + os.pathsep + environment.get("LD_LIBRARY_PATH", "")
        injected = dict(environment, CUDA_INJECTION64_PATH=str(inject))
        command = [options.python, str(program)]
        plain = run("plain", command, environment, options.lifetimes, options.checkpoints)
        sanitized = run("injected sanitizer", command, injected, options.lifetimes, options.checkpoints)
    print(f"{'lifetimes':>12} {'plain MiB':>10} {'plain us':>9} {'injected MiB':>13} {'injected us':>12}")
    for bare, watched in zip(plain, sanitized):
        print(f"{bare['lifetimes']:>12,} {bare['rss_mib']:>10.1f} {bare['us_each']:>9.1f} "
              f"{watched['rss_mib']:>13.1f} {watched['us_each']:>12.1f}")

    def change(rows, key):
        return rows[-1][key] / rows[0][key] - 1

    for label, rows in (("plain", plain), ("injected", sanitized)):
        growth = change(rows, "rss_mib")
        print(f"{label}: resident memory {growth:+.1%} from {rows[0]['lifetimes']:,} to "
              f"{rows[-1]['lifetimes']:,} lifetimes ({'within' if abs(growth) <= 0.05 else 'beyond'} 5%), "
              f"time per lifetime x{1 + change(rows, 'us_each'):.2f}")
    ratios = [watched["us_each"] / bare["us_each"] for bare, watched in zip(plain, sanitized)]
    print(f"injected / plain, time per lifetime: {min(ratios):.2f} to {max(ratios):.2f}")


if __name__ == "__main__":
    main()
