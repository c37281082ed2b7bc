"""`gilsan bench`'s child: measures every row and curve in interleaved rounds and writes the JSON
document (docs/performance.md describes it), then the Markdown and SVG made from it.

Each round measures each implementation's rows in a process of its own (`--group`): a callback thread
that once ran gilsan's trampoline keeps a Python thread state, and any other implementation's callback
on that thread would borrow it, so rows sharing a process would not measure the peers' own cost. The
sanitizer's groups (`gilsan run` with it on and off, the injected children) and the detection runs
take their turn in the same rounds (bench_rows.py lists every row).

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

import bench_detection
import bench_outputs
import bench_rows
import bench_sanitizer
import bench_targets
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
    parser.add_argument("--only", help="internal: with --group, only these of its rows (names after GROUP/)")
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


def failure(error):
    """A row's status for an exception: one line, as a Markdown table cell needs."""
    return f"failed: {type(error).__name__}: {' '.join(str(error).split())}"


def sizes(quick):
    """How much each figure measures: --quick is CI's smoke test (seconds), the default the issue's."""
    return {"count": 500 if quick else 20000, "rounds": 3 if quick else 5,
            "start_samples": 20 if quick else 1000, "detection_runs": 2 if quick else 8}


def child_specs(implementations, raw, size):
    """(id, how) of every row and latency a group's own child measures."""
    rows = [(row_id, how) for row_id, _, how in bench_rows.implementation_rows(implementations, raw, size["count"])]
    return rows + [(row_id, how) for row_id, _, how, _ in
                   bench_rows.latency_rows(implementations, raw, size["start_samples"])]


def measure_group_once(group, only, implementations, raw, size):
    """The child of one group: each of its rows measured once, as {row id: us or failure}; a latency
    gives ID-p50 and ID-p99."""
    results = {}
    for row_id, measure in child_specs(implementations, raw, size):
        if row_id.split("/")[0] != group or not callable(measure) or (only and row_id.split("/", 1)[1] not in only):
            continue
        try:
            value = measure()
        except Exception as error:  # a peer's failure is its row's status, not the run's end
            value = failure(error)
        if isinstance(value, dict):
            results.update({f"{row_id}-{quantile}": figure for quantile, figure in value.items()})
        else:
            results[row_id] = value
    return results


def group_measure(group, arguments, only=None, environment=None, renamed=None):
    """A measure for measure_rounds: runs the group's child process, returns {row id: us or failure}.
    `only`: some of its rows; `environment`: the child's (an injection); `renamed`: the group its rows
    are reported under."""
    def run():
        command = [sys.executable, os.path.abspath(__file__), "--group", group, "--impl", arguments.impl]
        if arguments.quick:
            command.append("--quick")
        if only:
            command += ["--only", ",".join(only)]
        child = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=600,
                               env=environment)
        if child.returncode != 0:
            last = (child.stderr.strip().splitlines() or ["no output"])[-1]
            raise RuntimeError(f"its process exited {child.returncode}: {last}")
        results = json.loads(child.stdout.strip().splitlines()[-1])
        if renamed:
            results = {renamed + "/" + key.split("/", 1)[1]: value for key, value in results.items()}
        return results

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
                samples[key] = failure(error)
                print(f"gilsan bench: {key}: {samples[key]}", file=sys.stderr, flush=True)
    return samples


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


def group_measures(arguments, implementations, raw, size, specs, libraries):
    """{group: measure} of every group, in the order each round runs them. `specs`: (id, how) of every
    row and latency; `libraries`: {injected group: library} of those that can run here."""
    measured_outside = {row_id.split("/")[0] for row_id, how in specs if how is None}
    driver = gilsan.driver().kind
    measures = {group: group_measure(group, arguments)
                for group in sorted({row_id.split("/")[0] for row_id, how in child_specs(implementations, raw, size)
                                     if callable(how)})}
    for mode, _ in bench_sanitizer.IN_PROCESS_MODES:
        if f"sanitizer-{mode}" in measured_outside:
            measures[f"sanitizer-{mode}"] = bench_sanitizer.in_process_measure(mode, driver, size["count"])
    if libraries:
        only = bench_sanitizer.INJECTED_WORKLOADS
        measures["not-injected"] = group_measure("reference", arguments, only, renamed="not-injected")
        for group, library in libraries.items():
            measures[group] = group_measure("reference", arguments, only, bench_sanitizer.injected_environment(library),
                                            renamed=group)
    if "detection" in measured_outside:
        measures["detection"] = bench_detection.measure(driver, size["detection_runs"])
    return measures


def outcome_of(key, how, by_group):
    """A figure's samples over the rounds, or why there are none."""
    if isinstance(how, str):
        return how
    samples = by_group.get(key.split("/")[0])
    if samples is None:
        return "not measured"
    if isinstance(samples, str):
        return samples
    values = [sample[key] for sample in samples if key in sample]
    failures = [value for value in values if isinstance(value, str)]
    return failures[0] if failures else (values or "failed: no sample")


def assemble(rows_defined, latencies_defined, by_group, count):
    """The document's rows and latencies from the rounds' samples."""
    rows = []
    for row_id, label, how in rows_defined:
        outcome = outcome_of(row_id, how, by_group)
        rows.append({"id": row_id, "label": label, "count": count,
                     **({"status": outcome} if isinstance(outcome, str) else median_and_spread(outcome))})
    latencies = []
    for latency_id, label, how, unit in latencies_defined:
        entry = {"id": latency_id, "label": label, "unit": unit}
        for quantile in ("p50", "p99"):
            outcome = outcome_of(f"{latency_id}-{quantile}", how, by_group)
            if isinstance(outcome, str):
                entry = {"id": latency_id, "label": label, "unit": unit, "status": outcome}
                break
            entry[quantile] = median_and_spread(outcome)
        quiet = outcome_of(f"{latency_id.split('/')[0]}/quiet-period", how, by_group)
        if "status" not in entry and not isinstance(quiet, str):
            entry["quiet_ms"] = statistics.median(quiet) / 1000.0
        latencies.append(entry)
    return rows, latencies


def input_error(message):
    """A bad input file: one line, and exit 2 (`gilsan bench` passes it on as its own usage error)."""
    print(f"gilsan bench: {message}", file=sys.stderr, flush=True)
    sys.exit(2)


def render_earlier_run(path, markdown_path, svg_path):
    try:
        with open(path, encoding="utf-8") as earlier:
            document = json.load(earlier)
    except json.JSONDecodeError as error:
        input_error(f"{path}:{error.lineno}: not JSON ({error.msg})")
    except (OSError, UnicodeDecodeError) as error:
        input_error(f"{path}: cannot be read ({error})")
    if not isinstance(document, dict) or document.get("schema") != "gilsan-bench/1":
        input_error(f"{path}:1: not a `gilsan bench --json` run (no \"schema\": \"gilsan-bench/1\")")
    if problem := incomplete_run(document):
        input_error(f"{path}: not a complete `gilsan bench --json` run ({problem})")
    # The comparisons are made again from the rows: a run recorded before a comparison was added (the
    # round-by-round count) shows it too.
    document["ratios"] = bench_targets.targets_of(document["rows"], document.get("latencies") or [],
                                                  document["settings"]["rounds"])
    bench_outputs.write_all(document, None, markdown_path, svg_path)


def incomplete_run(document):
    """What a run's JSON lacks for the Markdown and the SVG (schema gilsan-bench/1), or None."""
    for key, kind in (("header", dict), ("settings", dict), ("rows", list), ("curves", dict)):
        if not isinstance(document.get(key), kind):
            return f"no \"{key}\" {kind.__name__}"
    for key in ("count", "rounds"):
        if key not in document["settings"]:
            return f"no settings.{key}"
    for index, row in enumerate(document["rows"]):
        if not isinstance(row, dict) or not {"id", "label"} <= set(row) or not ("median_us" in row or "status" in row):
            return f"rows[{index}] has no id, label and median_us or status"
    return None


def main():
    arguments = parse_arguments()
    if arguments.from_json:
        render_earlier_run(arguments.from_json, arguments.markdown, arguments.svg)
        return
    size = sizes(arguments.quick)
    implementations = load_implementations([name for name in arguments.impl.split(",") if name])
    raw = w.RawDriver()
    if arguments.group:
        only = set(arguments.only.split(",")) if arguments.only else None
        print(json.dumps(measure_group_once(arguments.group, only, implementations, raw, size)), flush=True)
        return
    rows_defined = bench_rows.implementation_rows(implementations, raw, size["count"])
    sanitizer_rows, libraries = bench_rows.sanitizer_rows(gilsan.driver().kind, implementations)
    rows_defined += sanitizer_rows
    latencies_defined = bench_rows.latency_rows(implementations, raw, size["start_samples"])
    specs = [(row[0], row[2]) for row in rows_defined + latencies_defined]
    by_group = measure_rounds(group_measures(arguments, implementations, raw, size, specs, libraries), size["rounds"],
                              f"{size['count']} callbacks, one process per implementation")
    rows, latencies = assemble(rows_defined, latencies_defined, by_group, size["count"])
    curves = {"queue_depth_python_held": [], "launching_threads": [], "streams_one_context": []}
    reference = implementations.get("reference")
    if not isinstance(reference, str) and reference is not None:
        curves = measure_curves(reference, size["count"], size["rounds"], arguments.quick)
    document = {
        "schema": "gilsan-bench/1", "header": header(),
        "settings": {**size, "quick": arguments.quick, "impl": arguments.impl},
        "rows": rows, "latencies": latencies, "curves": curves,
        "ratios": bench_targets.targets_of(rows, latencies, size["rounds"]),
    }
    bench_outputs.write_all(document, arguments.json, arguments.markdown, arguments.svg)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    main()
