"""Measures the watchdog's detection latency on the deadlock scenarios (a tool, not a test).

usage: watchdog_latency.py GILSAN [--runs N] [--driver sim] [--quiet-ms MS] [SCENARIO...]

Runs each scenario N times (default 30) with `gilsan run --report json` and reads, from each run's
watchdog report, `onset_to_report_ms`: from the last progress the watchdog saw (a board counter or a
thread's CPU use, i.e. the hang's onset as far as it can be known from outside) to the reports being
rendered. Prints one Markdown row per scenario: class, median, p99 (nearest rank), max, p99 minus the
quiet period, and how many runs were classified as expected. Without SCENARIO arguments it measures
scenarios/deadlock/*.py next to this checkout.
"""
import argparse
import glob
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def expected_class(path):
    with open(path, encoding="utf-8") as scenario:
        for line in scenario:
            if line.startswith("# gilsan: expect = deadlock:"):
                return line.split("deadlock:", 1)[1].strip()
    return None


def measure(gilsan, scenario, runs, driver, quiet_ms):
    latencies, matched, classes = [], 0, set()
    with tempfile.TemporaryDirectory(prefix="gilsan-latency-") as folder:
        report_path = os.path.join(folder, "run.json")
        for _ in range(runs):
            command = [gilsan, "run", scenario, "--driver", driver, "--report", "json", "-o", report_path,
                       "--quiet-ms", str(quiet_ms)]
            subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120, check=False)
            with open(report_path) as stream:
                report = json.load(stream).get("watchdog")
            if report is None or report.get("onset_to_report_ms") is None:
                continue
            latencies.append(report["onset_to_report_ms"])
            classes.add(report["class"])
            matched += report["class"] == expected_class(scenario)
    return latencies, matched, classes


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("gilsan")
    parser.add_argument("scenarios", nargs="*")
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--driver", default="sim")
    parser.add_argument("--quiet-ms", type=int, default=500)
    options = parser.parse_intermixed_args(argv)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    scenarios = options.scenarios or sorted(glob.glob(os.path.join(root, "scenarios", "deadlock", "*.py")))
    print("| scenario | class | runs reported | median | p99 | max | p99 minus quiet |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    failed = False
    for scenario in scenarios:
        latencies, matched, classes = measure(options.gilsan, scenario, options.runs, options.driver, options.quiet_ms)
        name = os.path.basename(scenario)
        if not latencies:
            print(f"| {name} | - | 0/{options.runs} | - | - | - | - |")
            failed = True
            continue
        p99 = percentile(latencies, 0.99)
        print(f"| {name} | {', '.join(sorted(classes))} | {matched}/{options.runs} | "
              f"{statistics.median(latencies):.1f} ms | {p99:.1f} ms | {max(latencies):.1f} ms | "
              f"{p99 - options.quiet_ms:.1f} ms |", flush=True)
        failed |= matched != options.runs
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
