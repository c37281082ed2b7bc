"""Runs one scenario file as a plain python3 script and checks its `# gilsan: expect` outcome.

This is how the module's tests exercise the scenarios without the runner (`gilsan run` does the same
with an embedded interpreter, a watchdog and a report). Supported expectations: pass, timeout,
deadlock:CLASS (as a timeout: only the watchdog names the class), unraisable:Type, exception:Type,
crash:SIGNAL. Exit status: 0 as expected, 1 not, 77 skipped (the
scenario does not run on the driver in $GILSAN_DRIVER, default sim, or needs a module that is not
installed).

usage: run_scenario_directly.py SCENARIO.py
"""
import importlib.util
import os
import re
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from scenario_header_lines import header_lines  # noqa: E402  (tests/, beside this folder)

SKIP = 77


def read_header(path):
    header = header_lines(path)
    if "expect" not in header:
        sys.exit(f"{path}: no '# gilsan: expect = ...' line")
    return header


def listed(value):
    return [item.strip() for item in value.split(",") if item.strip()]


def last_exception_type(stderr):
    """The type named by the last 'Type: message' line of a traceback."""
    for line in reversed(stderr.splitlines()):
        match = re.match(r"^([A-Za-z_][\w.]*)(:|$)", line)
        if match and not line.startswith(("Traceback", "Exception ignored")):
            return match.group(1).rsplit(".", 1)[-1]
    return None


SIM_HANG_SECONDS = 10.0


def main():
    path = sys.argv[1]
    header = read_header(path)
    driver = os.environ.get("GILSAN_DRIVER", "sim")
    if driver not in listed(header.get("drivers", "sim, real")):
        print(f"skip: {path} does not run on the {driver} driver")
        return SKIP
    for need in listed(header.get("needs", "")):
        if need == "two-devices":
            if int(os.environ.get("GILSAN_SIM_DEVICES", "1")) < 2:
                print("skip: needs two devices")
                return SKIP
        elif importlib.util.find_spec(need.split(".")[0]) is None:
            print(f"skip: needs {need}")
            return SKIP

    timeout = float(header.get("timeout", "60"))
    expect = header["expect"]
    kind, _, detail = expect.partition(":")
    if kind in ("timeout", "deadlock") and driver == "sim":
        # A header's timeout is sized for `gilsan run` on a GPU (a first kernel's lazy load, an import of
        # CuPy); on the simulated driver every scenario that does not hang ends within a few seconds,
        # so one still running after SIM_HANG_SECONDS has hung.
        timeout = min(timeout, SIM_HANG_SECONDS)
    environment = dict(os.environ)
    if "module_loading" in header:
        # As `gilsan run` does: the header pins the loading mode the driver reads at cuInit.
        environment["CUDA_MODULE_LOADING"] = header["module_loading"].upper()
    if kind == "crash" and "ASAN_OPTIONS" in environment:
        # As `gilsan run` does: a preloaded ASan runtime would turn the expected signal into "exit 1".
        environment["ASAN_OPTIONS"] = ("handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_abort=0:"
                                       + environment["ASAN_OPTIONS"])
    with tempfile.TemporaryDirectory(prefix="gilsan-driver-") as driver_folder:
        if driver == "sim" and environment.get("GILSAN_SIM_LIBRARY"):
            # As `gilsan run` does: the simulated driver is the libcuda.so.1 ctypes finds, and the one file
            # the module opens too.
            link = os.path.join(driver_folder, "libcuda.so.1")
            os.symlink(os.path.abspath(environment["GILSAN_SIM_LIBRARY"]), link)
            environment["GILSAN_SIM_LIBRARY"] = link
            environment["LD_LIBRARY_PATH"] = driver_folder + os.pathsep + environment.get("LD_LIBRARY_PATH", "")
        child = subprocess.Popen([sys.executable, path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 start_new_session=True, env=environment)
        try:
            stdout, stderr = child.communicate(timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            stdout, stderr = child.communicate()
            timed_out = True
    sys.stdout.write(stdout)
    sys.stderr.write(stderr)
    unraisable = "Exception ignored" in stderr

    # Without the runner's watchdog, a deadlock is a hang that only the timeout ends.
    if kind in ("timeout", "deadlock"):
        ok, got = timed_out, "timeout" if timed_out else f"exit {child.returncode}"
    elif timed_out:
        ok, got = False, "timeout"
    elif kind == "pass":
        ok, got = child.returncode == 0 and not unraisable, f"exit {child.returncode}, unraisable={unraisable}"
    elif kind == "unraisable":
        ok = child.returncode == 0 and unraisable and re.search(rf"^{re.escape(detail)}\b", stderr, re.M) is not None
        got = f"exit {child.returncode}, stderr above"
    elif kind == "exception":
        got = last_exception_type(stderr)
        ok = child.returncode == 1 and got == detail.rsplit(".", 1)[-1]
    elif kind == "crash":
        ok = child.returncode < 0 and signal.Signals(-child.returncode).name == detail
        got = f"exit {child.returncode}"
    else:
        print(f"{path}: '{expect}' cannot be checked without the runner and its watchdog")
        return SKIP
    print(f"{path}: expected {expect}, got {got}: {'as expected' if ok else 'NOT as expected'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
