"""`gilsan bench`'s child: measures every row and curve in interleaved rounds and writes the JSON
document (docs/performance.md describes it), then the Markdown and SVG made from it.

Each round measures each implementation's rows in a process of its own (`--group`): a callback thread
that once ran gilsan's trampoline keeps a Python thread state, and any other implementation's callback
on that thread would borrow it, so rows sharing a process would not measure the peers' own cost.

Run by the `gilsan bench` command (harness/bench/bench_command.cpp), which chooses the interpreter,
the driver and the output paths; its arguments are validated there."""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

import gilsan
import gilsan_impl
from gilsan_impl.base import Unavailable

import bench_outputs
import bench_workloads as w

PEERS = ("cupy", "cuda-core", "cuda-bindings", "numba-cuda")


def parse_arguments():
    parser = argparse.ArgumentParser(prog="gilsan bench")
    parser.add_argument("--impl", default="reference," + ",".join(PEERS))
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json")
    parser.add_argument("--markdown")
    parser.add_argument("--svg")
    parser.add_argument("--from-json", help="render the Markdown and SVG of an earlier run; measures nothing")
    parser.add_argument("--group", help="internal: measure this group's rows once, print them as JSON")
    return parser.parse_args()


def load_implementations(names):
    """name -> adapter, or name -> why it cannot run (a row says so; never a failure)."""
    loaded = {}
    for name in names:
        try:
            adapter = gilsan_impl.load(name)
            adapter.require_installed()
            adapter.require_driver()
            loaded[name] = adapter
        except Unavailable as error:
            loaded[name] = str(error) if "not installed" not in str(error) else "not installed"
    return loaded


def define_rows(implementations, raw, count):
    """(id, label, measure or why-not) for every row; measure() returns microseconds per callback."""
    rows = []
    reference = implementations.get("reference")
    for name, adapter in implementations.items():
        label = "gilsan.host_launch" if name == "reference" else f"{name} launch"
        if isinstance(adapter, str):
            rows.append((f"{name}/*", f"{name}: every row", adapter))
            continue
        for workload, text, needs in (("python-loop", "Python callable, launched in a Python loop", "stream-launch"),
                                      ("python-held", "Python callable, drained behind held work", "stream-launch"),
                                      ("native-loop", "native function, launched in a Python loop", "native-function"),
                                      ("native-held", "native function, drained behind held work", "native-function")):
            row_id = f"{name}/{workload}"
            if needs not in adapter.capabilities:
                rows.append((row_id, f"{label}, {text}", f"{name} lacks {needs}"))
            else:
                measure = getattr(w, workload.replace("-", "_"))
                rows.append((row_id, f"{label}, {text}", _on_stream(adapter, measure, count)))
    if not isinstance(reference, str) and reference is not None:
        rows.append(("raw/native-loop", "raw cuLaunchHostFunc of a native function (ctypes enqueue)",
                     _on_stream(reference, lambda i, s, n: w.raw_native_loop(raw, i, s, n), count, quiet=True)))
        rows.append(("raw/python-loop", "ctypes CFUNCTYPE(Python) through cuLaunchHostFunc, Python loop",
                     _on_stream(reference, lambda i, s, n: w.raw_python_loop(raw, i, s, n), count, quiet=True)))
        rows.append(("raw/python-held", "ctypes CFUNCTYPE(Python) through cuLaunchHostFunc, behind held work",
                     _on_stream(reference, lambda i, s, n: w.raw_python_held(raw, i, s, n), count, quiet=True)))
        for nodes in (100, 2000):
            rows.append((f"reference/graph-{nodes}", f"gilsan graph of {nodes} Python host nodes, per node",
                         _on_stream(reference, lambda i, s, n, k=nodes: w.gilsan_graph(s, k), count)))
    return rows


def _on_stream(adapter, measure, count, quiet=False):
    """`quiet`: a stream on which no host function ran yet (the raw rows: not even gilsan's)."""
    streams = {}

    def run():
        if "stream" not in streams:
            if quiet:
                stream = adapter.new_stream()
                adapter.busy(stream, 1)
                adapter.synchronize(stream)
                streams["stream"] = stream
            else:
                streams["stream"] = adapter.warm_stream()
        return measure(adapter, streams["stream"], count)

    return run


def measure_group_once(group, implementations, raw, count):
    """The child of one group: each of its rows measured once, as {row id: us or failure}."""
    results = {}
    for row_id, _, measure in define_rows(implementations, raw, count):
        if row_id.split("/")[0] != group or not callable(measure):
            continue
        try:
            results[row_id] = measure()
        except Exception as error:  # a peer's failure is its row's status, not the run's end
            results[row_id] = f"failed: {type(error).__name__}: {error}"
    return results


def group_measure(group, arguments):
    """A measure for measure_rounds: runs the group's child process, returns {row id: us or failure}."""
    def run():
        command = [sys.executable, os.path.abspath(__file__), "--group", group, "--impl", arguments.impl]
        if arguments.quick:
            command.append("--quick")
        child = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=600)
        if child.returncode != 0:
            last = (child.stderr.strip().splitlines() or ["no output"])[-1]
            raise RuntimeError(f"its process exited {child.returncode}: {last}")
        return json.loads(child.stdout.strip().splitlines()[-1])

    return run


def median_and_spread(samples):
    return {"median_us": statistics.median(samples), "min_us": min(samples), "max_us": max(samples),
            "samples_us": samples}


def measure_rounds(measures, rounds, what):
    """Every measure once per round, rounds interleaved, so drift hits every row alike."""
    samples = {key: [] for key in measures}
    for round_index in range(rounds):
        print(f"gilsan bench: {what}: round {round_index + 1}/{rounds}", file=sys.stderr, flush=True)
        for key, measure in measures.items():
            if isinstance(samples[key], str):
                continue
            try:
                samples[key].append(measure())
            except Exception as error:  # a peer's failure is its row's status, not the run's end
                samples[key] = f"failed: {type(error).__name__}: {error}"
                print(f"gilsan bench: {key}: {samples[key]}", file=sys.stderr, flush=True)
    return samples


def ratio(rows, name, numerator, denominator, target):
    top, bottom = rows.get(numerator), rows.get(denominator)
    if top is None or bottom is None or "median_us" not in top or "median_us" not in bottom:
        return {"name": name, "numerator": numerator, "denominator": denominator, "target": target, "value": None}
    value = top["median_us"] / bottom["median_us"]
    return {"name": name, "numerator": numerator, "denominator": denominator, "target": target, "value": value,
            "met": value <= target}


def measure_curves(reference, count, rounds, quick):
    """The scaling curves of gilsan.host_launch with a Python callable: queue depth (drained behind held
    work), launching threads (one stream each), and streams of one context (with the callback threads
    that ran them, to show they are serialized on one)."""
    depths = (1, 10, 100) if quick else (1, 10, 100, 1000, 10000, 100000)
    thread_counts = (1, 2, 4) if quick else (1, 2, 4, 8, 16)
    stream_counts = (1, 4) if quick else (1, 4, 16, 64)
    held = reference.warm_stream()
    streams = [reference.warm_stream() for _ in range(max(thread_counts + stream_counts))]
    seen = {streams_used: set() for streams_used in stream_counts}
    measures = {("depth", d): (lambda d=d: w.python_held(reference, held, d)) for d in depths}
    measures.update({("threads", t): (lambda t=t: w.from_threads(reference, streams[:t], count)) for t in thread_counts})
    measures.update({("streams", n): (lambda n=n: w.across_streams(reference, streams[:n], count, seen[n]))
                     for n in stream_counts})
    samples = measure_rounds(measures, rounds, "scaling curves")

    def curve(kind, key, values):
        return [{key: value, **median_and_spread(samples[(kind, value)])} for value in values
                if not isinstance(samples[(kind, value)], str)]

    streams_curve = curve("streams", "streams", stream_counts)
    for point in streams_curve:
        point["callback_threads"] = len(seen[point["streams"]])
    return {"queue_depth_python_held": curve("depth", "depth", depths),
            "launching_threads": curve("threads", "threads", thread_counts), "streams_one_context": streams_curve}


def header():
    info = gilsan.driver()
    packages = {}
    for name, adapter in load_implementations(PEERS).items():
        packages[name] = adapter if isinstance(adapter, str) else adapter.version()
    return {"machine": platform.node(), "cpu": platform.processor() or platform.machine(),
            "python": platform.python_version(), "driver_kind": info.kind, "driver_version": info.version,
            "driver_library": info.library, "gpu_and_driver": gilsan_impl._gpu_and_driver()
            if info.kind == "real" else "simulated driver (no GPU)", "packages": packages,
            "date_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}


def main():
    arguments = parse_arguments()
    if arguments.from_json:
        with open(arguments.from_json, encoding="utf-8") as earlier:
            bench_outputs.write_all(json.load(earlier), None, arguments.markdown, arguments.svg)
        return
    count = 500 if arguments.quick else 20000
    rounds = 3 if arguments.quick else 5
    implementations = load_implementations([name for name in arguments.impl.split(",") if name])
    raw = w.RawDriver()
    if arguments.group:
        print(json.dumps(measure_group_once(arguments.group, implementations, raw, count)), flush=True)
        return
    defined = define_rows(implementations, raw, count)
    groups = sorted({row_id.split("/")[0] for row_id, _, m in defined if callable(m)})
    by_group = measure_rounds({group: group_measure(group, arguments) for group in groups}, rounds,
                              f"{count} callbacks, one process per implementation")
    rows = []
    for row_id, label, m in defined:
        row = {"id": row_id, "label": label, "count": count}
        outcome = m
        if callable(m):
            group_samples = by_group[row_id.split("/")[0]]
            if isinstance(group_samples, str):
                outcome = group_samples
            else:
                values = [sample[row_id] for sample in group_samples if row_id in sample]
                failures = [value for value in values if isinstance(value, str)]
                outcome = failures[0] if failures else (values or "failed: no sample")
        row.update({"status": outcome} if isinstance(outcome, str) else median_and_spread(outcome))
        rows.append(row)
    by_id = {row["id"]: row for row in rows}
    curves = {"queue_depth_python_held": [], "launching_threads": [], "streams_one_context": []}
    reference = implementations.get("reference")
    if not isinstance(reference, str) and reference is not None:
        curves = measure_curves(reference, count, rounds, arguments.quick)
    document = {
        "schema": "gilsan-bench/1", "header": header(),
        "settings": {"count": count, "rounds": rounds, "quick": arguments.quick, "impl": arguments.impl},
        "rows": rows, "curves": curves,
        "ratios": [
            _absolute(by_id, "reference/python-held", 2.5),
            ratio(by_id, "Python vs native, held drain", "reference/python-held", "reference/native-held", 2.0),
            ratio(by_id, "Python loop vs CuPy", "reference/python-loop", "cupy/python-loop", 0.4),
            ratio(by_id, "native vs raw driver", "reference/native-loop", "raw/native-loop", 1.05),
        ],
    }
    bench_outputs.write_all(document, arguments.json, arguments.markdown, arguments.svg)


def _absolute(rows, row_id, target_us):
    row = rows.get(row_id, {})
    value = row.get("median_us")
    return {"name": f"{row_id} in us (target at most {target_us})", "numerator": row_id, "denominator": None,
            "target": target_us, "value": value, **({"met": value <= target_us} if value is not None else {})}


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    main()
