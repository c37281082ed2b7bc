"""The sanitizer's cost, for `gilsan bench`: the same host_launch workloads with gilsan's sanitizer on
and off, each in a process of its own per round like every other group of rows.

- In-process: `gilsan run bench_sanitized_workload.py --sanitize on|off` (the scenario child's
  Sanitizer fed by the module's hooks and the driver's observer, docs/sanitizer.md "In `gilsan run`").
  On the real driver `--sanitize on` also puts the forwarding driver (libgilsan_cudashim.so) in front
  of it, so a third group splits the cost in two: `--sanitize off` with the forwarding driver put first
  on the child's library path here, as `gilsan run` puts it with the sanitizer on (the driver's
  share: every call watched and written to the board, each host function wrapped), against which
  `--sanitize on` is the sanitizer's own share.
- Injected: the reference rows' own child with CUDA_INJECTION64_PATH naming libgilsan_inject.so, which
  on the real driver subscribes to CUPTI; beside it the same child under libgilsan_cupti_floor.so
  (tests/checkers/gpu: CUPTI subscribed to the same domains, its callback empty), CUPTI's own floor.

`gilsan bench` (bench_command.cpp) names the gilsan executable and the three libraries in the
environment (GILSAN_BENCH_GILSAN, GILSAN_BENCH_INJECT_LIBRARY, GILSAN_BENCH_CUPTI_FLOOR_LIBRARY,
GILSAN_BENCH_CUDASHIM_LIBRARY)."""
import ctypes
import json
import os
import shutil
import subprocess
import tempfile

import gilsan_impl

WORKLOAD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench_sanitized_workload.py")
IN_PROCESS_WORKLOADS = (("python-loop", "Python callable, launched in a Python loop"),
                        ("python-held", "Python callable, drained behind held work"),
                        ("native-loop", "native function, launched in a Python loop"),
                        ("native-held", "native function, drained behind held work"))
INJECTED_WORKLOADS = ("python-loop", "native-loop")
# The in-process groups, in the order each round runs them: (mode, how the row names the run).
IN_PROCESS_MODES = (("no-native-locks", "in `gilsan run --sanitize off --native-locks off`"),
                    ("off", "in `gilsan run --sanitize off`"),
                    ("forwarding", "in `gilsan run --sanitize off` behind the forwarding driver"),
                    ("on", "in `gilsan run --sanitize on`"))


def gilsan_executable():
    path = os.environ.get("GILSAN_BENCH_GILSAN", "")
    return path if path and os.access(path, os.X_OK) else None


def forwarding_library():
    """The forwarding driver's file, absolute (a link to it is made in another folder), or None."""
    path = os.environ.get("GILSAN_BENCH_CUDASHIM_LIBRARY", "")
    return os.path.abspath(path) if path and os.path.isfile(path) else None


class _DlInfo(ctypes.Structure):
    _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]


def real_driver_file():
    """The file of the libcuda.so.1 this process loaded, absolute, as `gilsan run` hands it to the
    forwarding driver (GILSAN_REAL_LIBCUDA; the module's driver() names only "libcuda.so.1"), or None."""
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
        dladdr = ctypes.CDLL(None).dladdr  # glibc 2.34 and later: libdl is part of libc
    except (OSError, AttributeError):
        return None
    info = _DlInfo()
    if not dladdr(ctypes.cast(cuda.cuInit, ctypes.c_void_p), ctypes.byref(info)) or not info.dli_fname:
        return None
    return os.path.abspath(os.fsdecode(info.dli_fname))


def forwarding_why_not(driver):
    """Why the forwarding group cannot run here, or None."""
    if driver != "real":
        return "not available on the simulated driver: the forwarding driver stands in front of the real one"
    if forwarding_library() is None:
        return "not available: gilsan_cudashim is not built (ninja gilsan_cudashim)"
    if real_driver_file() is None:
        return "not available: the file of the loaded libcuda.so.1 is not known (dladdr)"
    return None


def _forwarding_environment(folder):
    """The variables that make a `gilsan run` child load the forwarding driver, linked as libcuda.so.1
    into `folder`, in front of this process's real driver (harness/runner/run_driver.cpp does the same
    for a sanitized run). The `gilsan run` process itself then loads it too, and passes every call
    through: nobody watches there."""
    os.symlink(forwarding_library(), os.path.join(folder, "libcuda.so.1"))
    inherited = os.environ.get("LD_LIBRARY_PATH", "")
    return {"LD_LIBRARY_PATH": folder + (":" + inherited if inherited else ""),
            "GILSAN_REAL_LIBCUDA": real_driver_file()}


def in_process_measure(mode, driver, count):
    """A group measure: one `gilsan run` of the workload scenario; {row id: us per callback}. `mode`:
    no-native-locks (the native-lock interposer left out, docs/native-locks.md), off, forwarding or on."""
    def run():
        environment = dict(os.environ, GILSAN_BENCH_COUNT=str(count),
                           GILSAN_BENCH_IMPL_DIR=os.path.dirname(os.path.dirname(os.path.abspath(gilsan_impl.__file__))))
        sanitize = "on" if mode == "on" else "off"
        native_locks = "off" if mode == "no-native-locks" else "on"
        command = [gilsan_executable(), "run", WORKLOAD, "--driver", driver, "--sanitize", sanitize,
                   "--native-locks", native_locks, "--report", "json"]
        folder = tempfile.mkdtemp(prefix="gilsan-bench-forwarding-") if mode == "forwarding" else None
        try:
            if folder is not None:
                environment.update(_forwarding_environment(folder))
            child = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=900,
                                   env=environment)
        finally:
            if folder is not None:
                shutil.rmtree(folder, ignore_errors=True)
        try:
            report = json.loads(child.stdout)
        except json.JSONDecodeError:
            last = (child.stderr.strip().splitlines() or ["no output"])[-1]
            raise RuntimeError(f"gilsan run exited {child.returncode}: {last}") from None
        if report.get("outcome") != "pass":
            raise RuntimeError(f"the workload's run ended {report.get('outcome')}: "
                               f"{(report.get('stderr') or '').strip()[-300:]}")
        results = json.loads(report["stdout"].strip().splitlines()[-1])
        return {f"sanitizer-{mode}/{name}": value for name, value in results.items()}

    return run


def in_process_rows(driver, reference_available):
    """(row id, label, why-not or None) of the in-process rows."""
    why = None
    if not reference_available:
        why = "needs gilsan's reference module"
    elif gilsan_executable() is None:
        why = "not available: the gilsan executable is not known (run through `gilsan bench`)"
    rows = []
    for mode, how in IN_PROCESS_MODES:
        mode_why = why or (forwarding_why_not(driver) if mode == "forwarding" else None)
        for name, text in IN_PROCESS_WORKLOADS:
            rows.append((f"sanitizer-{mode}/{name}", f"gilsan.host_launch {how}, {text}", mode_why))
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
