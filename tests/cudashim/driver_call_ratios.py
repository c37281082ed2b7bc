#!/usr/bin/env python3
"""The side-by-side table of gilsan_driver_call_bench: per call, the driver behind, the forwarding
driver in front of it, the difference and the ratio (medians over the repetitions of one run).

usage: driver_call_ratios.py RESULTS.json [--markdown OUT.md]
       driver_call_ratios.py --run BENCH [BENCH ARGUMENTS...]

--run runs the bench briefly (a smoke test: it checks that every row of both drivers is there and
timed, never what the times are), prints the table and leaves no file behind.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

QUERIES = ("cuCtxGetCurrent", "cuStreamGetCtx", "cuStreamGetCaptureInfo")
BATCHED = ("cuLaunchHostFunc", "host-function-run")  # each with its batch sizes, "cuLaunchHostFunc/32"
DRIVERS = ("real", "forwarding")
WHAT = {
    "cuCtxGetCurrent": "a query libraries make at each launch",
    "cuStreamGetCtx": "asked by the forwarding driver at each launch",
    "cuStreamGetCaptureInfo": "asked by the forwarding driver at each launch",
    "cuLaunchHostFunc": "enqueue behind a held host function, batches of {}",
    "host-function-run": "per host function, drained, batches of {}",
}


def fail(message):
    sys.exit(f"driver_call_ratios.py: {message}")


def medians(path):
    """{(driver, row): median nanoseconds} from a Google Benchmark JSON file."""
    try:
        with open(path) as stream:
            document = json.load(stream)
    except (OSError, ValueError) as error:
        fail(f"{path}: {error}")
    times = {}
    for entry in document.get("benchmarks", []):
        if entry.get("run_type") == "aggregate" or entry.get("error_occurred"):
            if entry.get("error_occurred"):
                fail(f"{path}: {entry.get('name')}: {entry.get('error_message')}")
            continue
        scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}.get(entry.get("time_unit", "ns"))
        if scale is None:
            fail(f"{path}: {entry.get('name')}: unknown time unit {entry.get('time_unit')!r}")
        name = entry.get("run_name", entry.get("name", "")).split("/manual_time")[0]
        per_host_function = entry.get("ns_per_host_function")  # launches and runs: per batch, and this
        times.setdefault(name, []).append(per_host_function if per_host_function is not None
                                          else entry["real_time"] * scale)
    # The rows: every query, and every batch size the file has of each batched call (an earlier
    # file's unsized rows included).
    rows = list(QUERIES)
    for call in BATCHED:
        sized = sorted((name.split("/", 1)[1] for name in times if name.startswith(f"real/{call}")),
                       key=lambda row: (len(row), row))
        if not sized:
            fail(f"{path}: no result for real/{call}")
        rows += sized
    table = {}
    for driver in DRIVERS:
        for row in rows:
            found = times.get(f"{driver}/{row}")
            if not found:
                fail(f"{path}: no result for {driver}/{row}")
            if min(found) <= 0:
                fail(f"{path}: {driver}/{row} took no time")
            table[(driver, row)] = statistics.median(found)
    return table, rows, len(times[f"real/{QUERIES[0]}"])


def markdown(table, rows, repetitions):
    lines = [f"Median of {repetitions} repetition(s), nanoseconds per call (per host function for the run).",
             "",
             "| call | what | real driver | forwarding driver | difference | forwarding / real |",
             "| --- | --- | ---: | ---: | ---: | ---: |"]
    for row in rows:
        call, _, size = row.partition("/")
        what = WHAT[call].format(size or "1,000")
        real, forwarding = table[("real", row)], table[("forwarding", row)]
        lines.append(f"| {row} | {what} | {real:.1f} | {forwarding:.1f} | {forwarding - real:+.1f} | "
                     f"{forwarding / real:.2f} |")
    return "\n".join(lines) + "\n"


def run(arguments):
    if not arguments:
        fail("--run needs the bench's path")
    handle, out = tempfile.mkstemp(prefix="gilsan-driver-calls-", suffix=".json")
    os.close(handle)
    try:
        command = arguments + ["--benchmark_min_time=0.01", f"--benchmark_out={out}", "--benchmark_out_format=json"]
        try:
            finished = subprocess.run(command, capture_output=True, text=True, timeout=100)
        except subprocess.TimeoutExpired:
            fail(f"{arguments[0]} ran past 100 s")
        if finished.returncode != 0:
            fail(f"{arguments[0]} exited {finished.returncode}:\n{finished.stderr}")
        table, rows, repetitions = medians(out)
    finally:
        os.unlink(out)
    sys.stdout.write(markdown(table, rows, repetitions))


def main(argv):
    if argv[:1] == ["--run"]:
        run(argv[1:])
        return
    if len(argv) not in (1, 3) or (len(argv) == 3 and argv[1] != "--markdown"):
        fail("usage: driver_call_ratios.py RESULTS.json [--markdown OUT.md] | --run BENCH [ARGUMENTS...]")
    table, rows, repetitions = medians(argv[0])
    text = markdown(table, rows, repetitions)
    sys.stdout.write(text)
    if len(argv) == 3:
        with open(argv[2], "w") as stream:
            stream.write(text)


if __name__ == "__main__":
    main(sys.argv[1:])
