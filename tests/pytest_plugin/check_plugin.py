#!/usr/bin/env python3
"""Runs `pytest -p gilsan.pytest` (or, pip installed, `pytest --gilsan`) on sim_cases/ or cupy_cases/ and checks what the plugin made of
each test (docs/pytest-plugin.md), in both modes (one child for the session, the default; and
--gilsan-isolate=test): a clean test passes, a GIL-held synchronize fails with the classified hang
report and the tests after it still run, a host function that calls CUDA fails (or, with
--gilsan-reports=warn, passes with a warning carrying the report), a test's own failure is passed on;
and nothing the session started is left running, nothing left in its temporary folder. On the sim
cases, also: the session's tests share one child until a hang replaces it; a test that runs past
--gilsan-timeout fails and the next one runs; a report made only when the child ends (a host function
left behind) is shown at the end of the session and fails it; a test that ends the process is not
blamed for an earlier test's report; the cache plugin's options in PYTEST_ADDOPTS reach the child; and
with pytest-xdist (-n 2) every test ends the same.

Exit status: 0 all as expected, 1 not, 77 skipped (no pytest in the interpreter, or no CuPy for the
CuPy cases; the reason is printed).
"""
import argparse
import os
import shutil
import signal
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
    "test_gil_held_synchronize_deadlock": ("failed", ["got deadlock:gil-driver-inversion", "gil-driver-inversion",
                                                      # the board names the test beside its thread
                                                      "activity: pytest cases_sim.py::test_gil_held_synchronize_deadlock"]),
    "test_callback_makes_cuda_call": ("failed", ["got report:cuda-call-in-host-function"]),
    "test_fails_by_itself": ("failed", ["the test's own failure"]),
}
# The sim cases' others, by mode: a host function left behind is reported when the child ends, which
# is the test's own end only when it has a child of its own.
SIM_EXPECTED = {
    "session": {"test_clean_again": ("passed", []), "test_slow": ("passed", []), "test_exits_the_process": ("passed", []),
                "test_zz_leaves_a_host_function_behind": ("passed", [])},
    "test": {"test_clean_again": ("passed", []), "test_slow": ("passed", []), "test_exits_the_process": ("passed", []),
             "test_zz_leaves_a_host_function_behind": ("failed", ["got report:host-function-lost-at-exit"])},
}
LEFTOVER_HEADING = "reports made when a session's child ended"
# A hang must be reported by the watchdog, well before the plugin's own per-test timeout.
TEST_TIMEOUT_SECONDS = 120
# One pytest session of these few cases: far past what any takes, for a session that hangs itself.
SESSION_TIMEOUT_SECONDS = 240


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


def run_pytest(args, cases, extra, variables=None, cache=False):
    """One pytest session, in a session of its own and with its own TMPDIR; returns (junit root, output,
    problems, exit status)."""
    with tempfile.TemporaryDirectory(prefix="gilsan-plugin-check-") as folder:
        junit = os.path.join(folder, "junit.xml")
        tmp = os.path.join(folder, "tmp")
        os.mkdir(tmp)
        environment = dict(os.environ, TMPDIR=tmp, PYTHONDONTWRITEBYTECODE="1", **(variables or {}))
        if args.installed:
            # Nothing but the environment pip installed into: the program, module and plugin come from there.
            for name in ("PYTHONPATH", "GILSAN_EXECUTABLE", "GILSAN_SIM_LIBRARY"):
                environment.pop(name, None)
            plugin = ["--gilsan"]
        else:
            environment.update(PYTHONPATH=args.module_dir, GILSAN_EXECUTABLE=args.gilsan)
            plugin = ["-p", "gilsan.pytest"]
        timeout = [] if any(option.startswith("--gilsan-timeout") for option in extra) else \
            [f"--gilsan-timeout={TEST_TIMEOUT_SECONDS}"]
        command = [args.python, "-m", "pytest", *plugin, f"--gilsan-driver={args.driver}",
                   *timeout, *([] if cache else ["-p", "no:cacheprovider"]), "--rootdir", cases,
                   f"--junitxml={junit}", "-rA",
                   # cases_*.py, not test_*.py: a plain `pytest tests/` must not collect a test that hangs.
                   "-o", "python_files=cases_*.py", cases] + extra
        started = time.monotonic()
        process = subprocess.Popen(command, cwd=cases, env=environment, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True, errors="replace", start_new_session=True)
        try:
            output, _ = process.communicate(timeout=SESSION_TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired:
            # A hung session is a failure to report, not a hang of this check: end its whole session.
            os.killpg(process.pid, signal.SIGKILL)
            output, _ = process.communicate()
            output += f"\n(killed: the pytest session ran past {SESSION_TIMEOUT_SECONDS} s)"
        print(f"$ {' '.join(command)}\n(exit {process.returncode}, {time.monotonic() - started:.1f} s)\n{output}")
        problems = []
        left = session_processes(process.pid)
        if left:
            problems.append(f"processes of the session still running: {left}")
        # pytest's own base temporary folder (pytest-of-USER, kept by design; pytest-xdist makes it) is not ours.
        leftovers = [entry for entry in os.listdir(tmp) if not entry.startswith("pytest-of-")]
        if leftovers:
            problems.append(f"left in TMPDIR: {leftovers}")
        if not os.path.exists(junit):
            problems.append("pytest wrote no JUnit file")
            return None, output, problems, process.returncode
        return ElementTree.parse(junit).getroot(), output, problems, process.returncode


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


def check(found, expected, problems, cases="sim"):
    for name, (outcome, texts) in expected.items():
        texts = [text.replace("cases_sim.py", f"cases_{cases}.py") for text in texts]
        if name not in found:
            problems.append(f"{name}: not run")
            continue
        got, message = found[name]
        if got != outcome:
            problems.append(f"{name}: expected {outcome}, got {got}:\n{message[:2000]}")
        for text in texts:
            if text not in message:
                problems.append(f"{name}: the failure text lacks {text!r}:\n{message[:2000]}")


def check_mode(args, cases, scratch, mode):
    """Every check of one mode; returns the problems found."""
    isolate = [f"--gilsan-isolate={mode}"]
    expected = dict(EXPECTED)
    if args.cases == "cupy":
        del expected["test_fails_by_itself"]
    else:
        expected.update(SIM_EXPECTED[mode])
    pids = os.path.join(scratch, f"pids-{mode}")
    root, output, problems, _ = run_pytest(args, cases, isolate, {"GILSAN_CASES_PIDS": pids})
    if root is not None:
        check(outcomes(root), expected, problems, args.cases)
    if args.cases == "sim":
        problems += check_children(pids, mode)
    # warn mode: the sanitizer's report is a warning; a hang still fails.
    root, output, warn_problems, _ = run_pytest(
        args, cases, isolate + ["--gilsan-reports=warn", "-k", "callback_makes_cuda_call or gil_held_synchronize_deadlock"])
    problems += warn_problems
    if root is not None:
        check(outcomes(root), {"test_callback_makes_cuda_call": ("passed", []),
                               "test_gil_held_synchronize_deadlock": EXPECTED["test_gil_held_synchronize_deadlock"]},
              problems, args.cases)
        for text in ("GilsanReportWarning", "cuda-call-in-host-function"):
            if text not in output:
                problems.append(f"warn mode: pytest's output lacks {text!r}")
    if args.cases == "sim" and mode == "session":
        problems += check_session_only(args, cases)
    return problems


def check_children(pids_path, mode):
    """test_clean and test_clean_again share a child in session mode, and have one each in test mode."""
    try:
        with open(pids_path, encoding="utf-8") as stream:
            pids = [line.strip() for line in stream if line.strip()]
    except OSError:
        return ["the clean tests recorded no process"]
    if len(pids) != 2:
        return [f"expected the two clean tests' processes, got {pids}"]
    if (pids[0] == pids[1]) != (mode == "session"):
        return [f"the two clean tests ran in processes {pids}: expected {'one' if mode == 'session' else 'two'}"]
    return []


def check_session_only(args, cases):
    """A test past --gilsan-timeout, and a report made only when the child ends."""
    problems = []
    root, output, run_problems, _ = run_pytest(args, cases, ["--gilsan-timeout=5", "-k", "slow or zz_leaves"],
                                               {"GILSAN_CASES_SLOW": "1"})
    problems += run_problems
    if root is not None:
        check(outcomes(root), {"test_slow": ("failed", ["ran past --gilsan-timeout (5 s)"]),
                               "test_zz_leaves_a_host_function_behind": ("passed", [])}, problems)
    root, output, run_problems, status = run_pytest(args, cases, ["-k", "clean or zz_leaves"])
    problems += run_problems
    if root is not None:
        check(outcomes(root), {"test_clean": ("passed", []), "test_clean_again": ("passed", []),
                               "test_zz_leaves_a_host_function_behind": ("passed", [])}, problems)
        for text in (LEFTOVER_HEADING, "host-function-lost-at-exit"):
            if text not in output:
                problems.append(f"a report made when the child ended: pytest's output lacks {text!r}")
        if status != 1:
            problems.append(f"a report made when the child ended: pytest exited {status}, not 1")
    # A test that ends the process after another test's sanitizer report: its failure says how the child
    # ended, not the earlier report (which outranks an exit in gilsan's outcome of the whole child).
    root, output, run_problems, _ = run_pytest(args, cases, ["-k", "callback_makes_cuda_call or exits_the_process"],
                                               {"GILSAN_CASES_EXIT": "1"})
    problems += run_problems
    if root is not None:
        found = outcomes(root)
        check(found, {"test_callback_makes_cuda_call": EXPECTED["test_callback_makes_cuda_call"],
                      "test_exits_the_process": ("failed", ["the session's child exited (status 0)"])}, problems)
        if "cuda-call-in-host-function" in found.get("test_exits_the_process", ("", ""))[1]:
            problems.append("test_exits_the_process is blamed for test_callback_makes_cuda_call's report")
    # Options of the cache plugin in the ini file's or the environment's addopts reach the child too.
    root, output, run_problems, _ = run_pytest(args, cases, ["-k", "clean"], {"PYTEST_ADDOPTS": "--ff"}, cache=True)
    problems += run_problems
    if root is not None:
        check(outcomes(root), {"test_clean": ("passed", []), "test_clean_again": ("passed", [])}, problems)
    # pytest-xdist: each worker runs its share in a child of its own; the controller shows what the
    # workers' children reported at their end.
    if subprocess.run([args.python, "-c", "import xdist"], capture_output=True).returncode != 0:
        print(f"(pytest-xdist is not in {args.python}: its check is left out)")
        return problems
    root, output, run_problems, _ = run_pytest(args, cases, ["-n", "2"])
    problems += run_problems
    if root is not None:
        expected = dict(EXPECTED, **SIM_EXPECTED["session"])
        xdist_problems = []  # the same outcomes, whichever worker ran each
        check(outcomes(root), expected, xdist_problems)
        problems += [f"-n 2: {problem}" for problem in xdist_problems]
        if LEFTOVER_HEADING not in output:
            problems.append(f"-n 2: pytest's output lacks {LEFTOVER_HEADING!r}")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", required=True, help="an interpreter with pytest (and CuPy for the CuPy cases)")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--module-dir", help="the folder of the gilsan extension module (with --gilsan)")
    where.add_argument("--installed", action="store_true",
                       help="gilsan is pip installed in --python's environment (tests/pytest_plugin/check_wheel.py): "
                            "the plugin is asked for with --gilsan, and no variable points at gilsan")
    parser.add_argument("--gilsan", help="the gilsan program (with --module-dir)")
    parser.add_argument("--cases", choices=("sim", "cupy"), required=True)
    parser.add_argument("--driver", default="sim", choices=("sim", "real", "auto"))
    args = parser.parse_args()
    # pytest runs in a copy of the cases, so relative paths would point nowhere.
    if args.module_dir:
        if not args.gilsan:
            parser.error("--module-dir needs --gilsan")
        args.gilsan, args.module_dir = os.path.abspath(args.gilsan), os.path.abspath(args.module_dir)

    if not (os.access(args.python, os.X_OK) and
            subprocess.run([args.python, "-c", "import pytest"], capture_output=True).returncode == 0):
        print(f"SKIPPED: no pytest in {args.python} (ci/pytest-requirements.txt; no package registry?)")
        return SKIP
    if args.cases == "cupy" and subprocess.run([args.python, "-c", "import cupy"], capture_output=True).returncode != 0:
        print(f"SKIPPED: no CuPy in {args.python}")
        return SKIP
    # The cases run from a copy: pytest writes nothing into the source tree, and rootdir has no ini file.
    with tempfile.TemporaryDirectory(prefix="gilsan-plugin-cases-") as copy:
        cases = os.path.join(copy, "cases")
        shutil.copytree(os.path.join(HERE, f"{args.cases}_cases"), cases)
        problems = []
        for mode in ("session", "test"):
            problems += [f"--gilsan-isolate={mode}: {problem}" for problem in check_mode(args, cases, copy, mode)]
    return finish("check_plugin", problems)


def finish(name, problems):
    """Prints each problem and the verdict; the exit status (shared with check_wheel.py)."""
    for problem in problems:
        print(f"FAIL: {problem}")
    print(f"{name}: ok" if not problems else f"{name}: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
