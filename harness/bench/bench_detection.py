"""Detection latency, for `gilsan bench`: how long after a deadlock's onset `gilsan run` reports it.

A deadlocking scenario (scenarios/deadlock/gil_inversion.py: a GIL-holding synchronize waits for a
Python host function that waits for the GIL) runs several times per round through
`gilsan run --report json`. Each run's report gives `watchdog.onset_to_report_ms` (from the last
progress the watchdog saw, the onset, to the reports rendered; docs/runner.md) and the quiet period
in force (`watchdog.timing.quiet_ms`): the target is a p99 within the quiet period + 200 ms."""
import json
import os
import subprocess

import bench_latency
import bench_sanitizer

SCENARIO = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                        "scenarios", "deadlock", "gil_inversion.py")
EXPECTED = "deadlock:gil-driver-inversion"


def rows():
    why = None
    if bench_sanitizer.gilsan_executable() is None:
        why = "not available: the gilsan executable is not known (run through `gilsan bench`)"
    elif not os.path.isfile(SCENARIO):
        why = f"not available: {SCENARIO} is missing"
    return [("detection/gil-inversion", "GIL/driver inversion (gil_inversion.py): onset to report", why)]


def measure(driver, runs):
    """A group measure: `runs` runs of the scenario; {row id-p50/-p99: us, quiet period: us}."""
    def run():
        latencies, quiet = [], set()
        for _ in range(runs):
            child = subprocess.run([bench_sanitizer.gilsan_executable(), "run", SCENARIO, "--driver", driver,
                                    "--report", "json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   timeout=120)
            try:
                report = json.loads(child.stdout)
            except json.JSONDecodeError:
                last = (child.stderr.strip().splitlines() or ["no output"])[-1]
                raise RuntimeError(f"gilsan run exited {child.returncode}: {last}") from None
            watchdog = report.get("watchdog") or {}
            if report.get("outcome") != EXPECTED or watchdog.get("onset_to_report_ms") is None:
                raise RuntimeError(f"expected {EXPECTED} with an onset, got {report.get('outcome')}")
            latencies.append(watchdog["onset_to_report_ms"] * 1000.0)
            quiet.add(watchdog["timing"]["quiet_ms"])
        if len(quiet) != 1:
            raise RuntimeError(f"the quiet period changed between runs: {sorted(quiet)} ms")
        found = bench_latency.percentiles(latencies)
        return {"detection/gil-inversion-p50": found["p50"], "detection/gil-inversion-p99": found["p99"],
                "detection/quiet-period": quiet.pop() * 1000.0}

    return run
