#!/usr/bin/env python3
"""The side-by-side table of gilsan_native_lock_bench: per lock kind, libc's uncontended lock and unlock
pair, the interposed one, and their ratio (medians over the repetitions of one run).

usage: native_lock_ratios.py --run BENCH --preload LIBGILSAN_NATIVE_LOCKS [--repetitions N] [--min-time SECONDS]

Runs BENCH with the interposer preloaded ahead of whatever LD_PRELOAD already holds, as `gilsan run` puts it
(a sanitizer's runtime there would otherwise define pthread_mutex_lock first), and ASan told that this is
fine (harness/runner/native_locks_preload.h). Checks that every row is there and timed, never what the
times are; leaves no file behind.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

KINDS = ("mutex", "rwlock-read", "rwlock-write")


def fail(message):
    sys.exit(f"native_lock_ratios.py: {message}")


def medians(document):
    times = {}
    for entry in document.get("benchmarks", []):
        if entry.get("error_occurred"):
            fail(f"{entry.get('name')}: {entry.get('error_message')}")
        if entry.get("run_type") == "aggregate":
            continue
        scale = {"ns": 1, "us": 1e3, "ms": 1e6}.get(entry.get("time_unit", "ns"))
        if scale is None:
            fail(f"{entry.get('name')}: unknown time unit {entry.get('time_unit')!r}")
        times.setdefault(entry.get("run_name", entry["name"]), []).append(entry["real_time"] * scale)
    return {name: statistics.median(values) for name, values in times.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", required=True, metavar="BENCH")
    parser.add_argument("--preload", required=True, metavar="LIBRARY")
    parser.add_argument("--repetitions", type=int, default=3)
    parser.add_argument("--min-time", default="0.05")
    arguments = parser.parse_args()
    if not os.path.exists(arguments.preload):
        fail(f"--preload {arguments.preload}: no such file")
    environment = dict(os.environ)
    environment["LD_PRELOAD"] = ":".join(filter(None, [arguments.preload, os.environ.get("LD_PRELOAD")]))
    environment["ASAN_OPTIONS"] = ":".join(filter(None, ["verify_asan_link_order=0", os.environ.get("ASAN_OPTIONS")]))
    with tempfile.TemporaryDirectory(prefix="gilsan-native-lock-bench-") as folder:
        out = os.path.join(folder, "results.json")
        completed = subprocess.run([arguments.run, f"--benchmark_out={out}", "--benchmark_out_format=json",
                                    f"--benchmark_repetitions={arguments.repetitions}",
                                    f"--benchmark_min_time={arguments.min_time}"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=environment)
        if completed.returncode != 0:
            fail(f"{arguments.run} exited {completed.returncode}: {completed.stderr.strip()}")
        with open(out) as stream:
            times = medians(json.load(stream))
    print("| lock, uncontended lock+unlock | libc (ns) | interposed (ns) | ratio |")
    print("|---|---|---|---|")
    for kind in KINDS:
        libc, interposed = times.get(f"libc/{kind}"), times.get(f"interposed/{kind}")
        if not libc or not interposed:
            fail(f"row {kind}: missing or untimed ({libc}, {interposed})")
        print(f"| {kind} | {libc:.2f} | {interposed:.2f} | {interposed / libc:.2f} |")


if __name__ == "__main__":
    main()
