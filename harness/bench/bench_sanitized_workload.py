# gilsan: expect = pass
# gilsan: drivers = sim, real
# gilsan: timeout = 600
# gilsan: description = gilsan bench: host_launch's workloads timed inside a `gilsan run` child
"""Run by `gilsan bench` as a scenario (`gilsan run THIS --sanitize on|off`), so that the same
workloads as the bench's own rows are timed in a child with the in-process sanitizer on or off: the
watchdog's board is there either way, so the two differ by the sanitizer alone.

The child's interpreter is isolated (no PYTHONPATH), so the bench names the adapters' folder and the
callback count in the environment; it prints one JSON line, {workload: us per callback}."""
import json
import os
import sys

sys.path.append(os.environ["GILSAN_BENCH_IMPL_DIR"])

import gilsan_impl  # noqa: E402

import bench_workloads as w  # noqa: E402  (this file's folder is the scenario's, first on sys.path)

WORKLOADS = ("python-loop", "python-held", "native-loop", "native-held")


def main():
    count = int(os.environ["GILSAN_BENCH_COUNT"])
    reference = gilsan_impl.load("reference")
    stream = reference.warm_stream()
    results = {name: getattr(w, name.replace("-", "_"))(reference, stream, count) for name in WORKLOADS}
    print(json.dumps(results), flush=True)


main()
