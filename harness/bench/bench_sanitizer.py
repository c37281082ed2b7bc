"""The sanitizer's cost, for `gilsan bench`: the same host_launch workloads with gilsan's sanitizer on
and off, each in a process of its own per round like every other group of rows.

- In-process: `gilsan run bench_sanitized_workload.py --sanitize on|off` (the scenario child's
  Sanitizer fed by the module's hooks and the driver's observer, docs/sanitizer.md "In `gilsan run`").
- Injected: the reference rows' own child with CUDA_INJECTION64_PATH naming libgilsan_inject.so, which
  on the real driver subscribes to CUPTI; beside it the same child under libgilsan_cupti_floor.so
  (tests/checkers/gpu: CUPTI subscribed to the same domains, its callback empty), CUPTI's own floor.

`gilsan bench` (bench_command.cpp) names the gilsan executable and the two libraries in the
environment (GILSAN_BENCH_GILSAN, GILSAN_BENCH_INJECT_LIBRARY, GILSAN_BENCH_CUPTI_FLOOR_LIBRARY)."""
import json
import os
import subprocess

import gilsan_impl

WORKLOAD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench_sanitized_workload.py")
IN_PROCESS_WORKLOADS = (("python-loop", "Python callable, launched in a Python loop"),
                        ("python-held", "Python callable, drained behind held work"),
                        ("native-loop", "native function, launched in a Python loop"),
                        ("native-held", "native function, drained behind held work"))
INJECTED_WORKLOADS = ("python-loop", "native-loop")


def gilsan_executable():
    path = os.environ.get("GILSAN_BENCH_GILSAN", "")
    return path if path and os.access(path, os.X_OK) else None


def in_process_measure(sanitize, driver, count):
    """A group measure: one `gilsan run` of the workload scenario; {row id: us per callback}."""
    def run():
        environment = dict(os.environ, GILSAN_BENCH_COUNT=str(count),
                           GILSAN_BENCH_IMPL_DIR=os.path.dirname(os.path.dirname(os.path.abspath(gilsan_impl.__file__))))
        command = [gilsan_executable(), "run", WORKLOAD, "--driver", driver, "--sanitize", sanitize, "--report", "json"]
        child = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=900,
                               env=environment)
        try:
            report = json.loads(child.stdout)
        except json.JSONDecodeError:
            last = (child.stderr.strip().splitlines() or ["no output"])[-1]
            raise RuntimeError(f"gilsan run exited {child.returncode}: {last}") from None
        if report.get("outcome") != "pass":
            raise RuntimeError(f"the workload's run ended {report.get('outcome')}: "
                               f"{(report.get('stderr') or '').strip()[-300:]}")
        results = json.loads(report["stdout"].strip().splitlines()[-1])
        return {f"sanitizer-{sanitize}/{name}": value for name, value in results.items()}

    return run


def in_process_rows(driver, reference_available):
    """(row id, label, why-not or None) of the in-process rows."""
    why = None
    if not reference_available:
        why = "needs gilsan's reference module"
    elif gilsan_executable() is None:
        why = "not available: the gilsan executable is not known (run through `gilsan bench`)"
    rows = []
    for sanitize in ("off", "on"):
        for name, text in IN_PROCESS_WORKLOADS:
            rows.append((f"sanitizer-{sanitize}/{name}",
                         f"gilsan.host_launch in `gilsan run --sanitize {sanitize}`, {text}", why))
    return rows


def injection_libraries(driver):
    """{group: library path} for the injected groups that can run here, and {group: why not}."""
    if driver != "real":
        why = ("not available on the simulated driver: it has no CUPTI (libgilsan_inject.so takes the "
               "simulated driver's own observer there, not what this row measures)")
        return {}, {"injected": why, "cupti-floor": why}
    found, missing = {}, {}
    for group, variable, target in (("injected", "GILSAN_BENCH_INJECT_LIBRARY", "gilsan_inject"),
                                    ("cupti-floor", "GILSAN_BENCH_CUPTI_FLOOR_LIBRARY", "gilsan_cupti_floor")):
        path = os.environ.get(variable, "")
        if path and os.path.isfile(path):
            found[group] = path
        else:
            missing[group] = f"not available: {target} is not built (ninja {target}; it needs CUPTI)"
    return found, missing


def injected_rows(driver):
    """(id, label, why-not or None) of the injected rows, and {group: library} of those that can run.
    `not-injected` is their baseline: the same child, the same rows, no injection."""
    found, missing = injection_libraries(driver)
    baseline_why = None if found else next(iter(missing.values()))
    rows = []
    for group, text, why in (("not-injected", "with no injection (the baseline of the two below)", baseline_why),
                             ("injected", "under libgilsan_inject.so (CUPTI)", missing.get("injected")),
                             ("cupti-floor", "under CUPTI with an empty callback (libgilsan_cupti_floor.so)",
                              missing.get("cupti-floor"))):
        for name in INJECTED_WORKLOADS:
            kind = "Python callable" if name.startswith("python") else "native function"
            rows.append((f"{group}/{name}", f"gilsan.host_launch {text}, {kind}, launched in a Python loop", why))
    return rows, found


def injected_environment(library):
    """The reference group's child environment under injection: the library, loaded by cuInit."""
    return dict(os.environ, CUDA_INJECTION64_PATH=library)
