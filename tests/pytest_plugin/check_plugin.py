#!/usr/bin/env python3
"""Runs `pytest -p gilsan.pytest` on sim_cases/ or cupy_cases/ and checks what the plugin made of
each test (docs/pytest-plugin.md): a clean test passes, a GIL-held synchronize fails with the
classified hang report, a host function that calls CUDA fails (or, with --gilsan-reports=warn,
passes with a warning carrying the report), a test's own failure is passed on; and nothing the
session started is left running, nothing left in its temporary folder.

Exit status: 0 all as expected, 1 not, 77 skipped (no pytest in the interpreter, or no CuPy for the
CuPy cases; the reason is printed).
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = 77
# test name -> (outcome, texts the failure message must hold), in the default (fail) mode.
EXPECTED = {
    "test_clean": ("passed", []),
    "test_gil_held_synchronize_deadlock": ("failed", ["got deadlock:gil-driver-inversion", "gil-driver-inversion"]),
    "test_callback_makes_cuda_call": ("failed", ["got report:cuda-call-in-host-function"]),
    "test_fails_by_itself": ("failed", ["the test's own failure"]),
}
# A hang must be reported by the watchdog, well before the plugin's own per-test timeout.
TEST_TIMEOUT_SECONDS = 120


def session_processes(session):
    """Processes still in the session the pytest run was started in (ours excepted)."""
    left = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8", errors="replace") as stream:
                fields = stream.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == session:  # field 6 of stat: the session id
            left.append(int(entry))
    return left


def run_pytest(args, cases, extra):
    """One pytest session, in a session of its own and with its own TMPDIR; returns (junit root, output)."""
    with tempfile.TemporaryDirectory(prefix="gilsan-plugin-check-") as folder:
        junit = os.path.join(folder, "junit.xml")
        tmp = os.path.join(folder, "tmp")
        os.mkdir(tmp)
        environment = dict(os.environ, TMPDIR=tmp, PYTHONPATH=args.module_dir, GILSAN_EXECUTABLE=args.gilsan,
                           PYTHONDONTWRITEBYTECODE="1")
        command = [args.python, "-m", "pytest", "-p", "gilsan.pytest", f"--gilsan-driver={args.driver}",
                   f"--gilsan-timeout={TEST_TIMEOUT_SECONDS}", "-p", "no:cacheprovider", "--rootdir", cases,
                   f"--junitxml={junit}", "-rA",
                   # cases_*.py, not test_*.py: a plain `pytest tests/` must not collect a test that hangs.
                   "-o", "python_files=cases_*.py", cases] + extra
        started = time.monotonic()
        process = subprocess.Popen(command, cwd=cases, env=environment, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True, errors="replace", start_new_session=True)
        output, _ = process.communicate()
        print(f"$ {' '.join(command)}\n(exit {process.returncode}, {time.monotonic() - started:.1f} s)\n{output}")
        problems = []
        left = session_processes(process.pid)
        if left:
            problems.append(f"processes of the session still running: {left}")
        leftovers = os.listdir(tmp)
        if leftovers:
            problems.append(f"left in TMPDIR: {leftovers}")
        if not os.path.exists(junit):
            problems.append("pytest wrote no JUnit file")
            return None, output, problems
        return ElementTree.parse(junit).getroot(), output, problems


def outcomes(root):
    """test name -> (outcome, message text) from a JUnit document."""
    found = {}
    for case in root.iter("testcase"):
        name = case.get("name")
        failure = case.find("failure")
        if failure is None:
            failure = case.find("error")
        if failure is not None:
            found[name] = ("failed", (failure.get("message") or "") + "\n" + (failure.text or ""))
        elif case.find("skipped") is not None:
            found[name] = ("skipped", case.find("skipped").get("message") or "")
        else:
            found[name] = ("passed", "")
    return found


def check(found, expected, problems):
    for name, (outcome, texts) in expected.items():
        if name not in found:
            problems.append(f"{name}: not run")
            continue
        got, message = found[name]
        if got != outcome:
            problems.append(f"{name}: expected {outcome}, got {got}:\n{message[:2000]}")
        for text in texts:
            if text not in message:
                problems.append(f"{name}: the failure text lacks {text!r}:\n{message[:2000]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", required=True, help="an interpreter with pytest (and CuPy for the CuPy cases)")
    parser.add_argument("--gilsan", required=True, help="the gilsan program")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--module-dir", help="the folder of the gilsan extension module")
    where.add_argument("--wheel", help="gilsan's wheel (harness/pymodule/make_wheel.py), or the folder that holds it: pip "
                                       "installs it into a temporary folder, and the checks use the module and "
                                       "plugin from there")
    parser.add_argument("--cases", choices=("sim", "cupy"), required=True)
    parser.add_argument("--driver", default="sim", choices=("sim", "real", "auto"))
    args = parser.parse_args()
    # pytest runs in a copy of the cases, so relative paths would point nowhere.
    args.gilsan = os.path.abspath(args.gilsan)
    if args.module_dir:
        args.module_dir = os.path.abspath(args.module_dir)

    if not (os.access(args.python, os.X_OK) and
            subprocess.run([args.python, "-c", "import pytest"], capture_output=True).returncode == 0):
        print(f"SKIPPED: no pytest in {args.python} (ci/pytest-requirements.txt; no package registry?)")
        return SKIP
    if args.cases == "cupy" and subprocess.run([args.python, "-c", "import cupy"], capture_output=True).returncode != 0:
        print(f"SKIPPED: no CuPy in {args.python}")
        return SKIP
    # The cases run from a copy: pytest writes nothing into the source tree, and rootdir has no ini file.
    with tempfile.TemporaryDirectory(prefix="gilsan-plugin-cases-") as copy:
        if args.wheel:
            if os.path.isdir(args.wheel):
                wheels = [entry for entry in os.listdir(args.wheel) if entry.endswith(".whl")]
                if len(wheels) != 1:
                    print(f"FAIL: expected one wheel in {args.wheel}, found {wheels}")
                    return 1
                args.wheel = os.path.join(args.wheel, wheels[0])
            args.module_dir = os.path.join(copy, "site")
            installed = subprocess.run([args.python, "-m", "pip", "install", "--quiet", "--no-index", "--no-deps",
                                        "--disable-pip-version-check", "--target", args.module_dir, args.wheel])
            if installed.returncode != 0:
                print(f"FAIL: pip could not install {args.wheel}")
                return 1
        cases = os.path.join(copy, "cases")
        shutil.copytree(os.path.join(HERE, f"{args.cases}_cases"), cases)
        expected = dict(EXPECTED)
        if args.cases == "cupy":
            del expected["test_fails_by_itself"]
        root, output, problems = run_pytest(args, cases, [])
        if root is not None:
            check(outcomes(root), expected, problems)
        # warn mode: the sanitizer's report is a warning; a hang still fails.
        root, output, warn_problems = run_pytest(
            args, cases, ["--gilsan-reports=warn", "-k", "callback_makes_cuda_call or gil_held_synchronize_deadlock"])
        problems += warn_problems
        if root is not None:
            check(outcomes(root), {"test_callback_makes_cuda_call": ("passed", []),
                                   "test_gil_held_synchronize_deadlock": EXPECTED["test_gil_held_synchronize_deadlock"]},
                  problems)
            for text in ("GilsanReportWarning", "cuda-call-in-host-function"):
                if text not in output:
                    problems.append(f"warn mode: pytest's output lacks {text!r}")
    for problem in problems:
        print(f"FAIL: {problem}")
    print("check_plugin: ok" if not problems else f"check_plugin: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
