#!/usr/bin/env python3
"""What the pytest plugin costs on many short host-callback tests, side by side with plain pytest.

Writes N tests (each launches one Python host function with the gilsan module and synchronizes) into a
temporary folder and times, round after round, interleaved: plain pytest; the plugin in session mode
(the default: one child under `gilsan run` for the session); and the plugin with --gilsan-isolate=test
(a child per test) on the first --isolated tests only, since it costs about a process start per test.
Then, once, the session mode with test --hang-at hanging (the main thread holds the GIL in a synchronize
its own host function waits behind): when the hung test was named (its JUnit time: from its start until
the watchdog's report ended the child) and whether every test after it still ran.

A benchmark, not a test: it prints medians and ratios and the issue's targets (docs/pytest-plugin.md,
"Cost"), and exits non-zero only when a run fails to run (77: no pytest in --python).

Usage: ci/pytest-plugin-bench.py --python VENV/bin/python --gilsan BUILD/bin/gilsan --module-dir BUILD/python
       [--tests 1000] [--isolated 60] [--rounds 3] [--hang-at 500] [--driver sim|real]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree

TEST = '''
def test_{index}():
    stream = gilsan.Stream()
    ran = []
    gilsan.host_launch(stream, ran.append, {index})
    stream.synchronize()
    assert ran == [{index}]
'''
HANG = '''
def test_{index}():
    stream = gilsan.Stream()
    stream.work(200)
    gilsan.host_launch(stream, print, "unreachable: the main thread holds the GIL")
    stream.synchronize(hold_gil=True)
'''
PER_FILE = 100  # tests per file, as a real suite spreads them


def write_tests(folder, count, hang_at=None):
    for first in range(0, count, PER_FILE):
        lines = ["import gilsan\n"]
        for index in range(first, min(first + PER_FILE, count)):
            lines.append((HANG if index == hang_at else TEST).format(index=index))
        with open(os.path.join(folder, f"test_callbacks_{first // PER_FILE:03d}.py"), "w", encoding="utf-8") as stream:
            stream.write("".join(lines))


def pytest_run(args, folder, plugin_options, selection=None):
    """Seconds of one pytest session, and its JUnit root."""
    junit = os.path.join(folder, "junit.xml")
    command = [args.python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", folder,
               f"--junitxml={junit}", *plugin_options, *(selection or [folder])]
    environment = dict(os.environ, PYTHONPATH=args.module_dir, GILSAN_EXECUTABLE=args.gilsan)
    # As a suite runs in CI: the tests' rewritten modules cached after the first session (in the temporary folder).
    environment.pop("PYTHONDONTWRITEBYTECODE", None)
    started = time.monotonic()
    finished = subprocess.run(command, cwd=folder, env=environment, capture_output=True, text=True, errors="replace")
    seconds = time.monotonic() - started
    if not os.path.exists(junit):
        sys.exit(f"pytest-plugin-bench: {' '.join(command)} wrote no JUnit file (exit {finished.returncode}):\n"
                 f"{finished.stdout[-3000:]}{finished.stderr[-3000:]}")
    root = ElementTree.parse(junit).getroot()
    os.remove(junit)
    return seconds, root


def counts(root):
    failed = sum(1 for case in root.iter("testcase") if case.find("failure") is not None or case.find("error") is not None)
    return sum(1 for _ in root.iter("testcase")), failed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", required=True, help="an interpreter with pytest")
    parser.add_argument("--gilsan", required=True)
    parser.add_argument("--module-dir", required=True, help="the folder of the gilsan extension module and plugin")
    parser.add_argument("--tests", type=int, default=1000)
    parser.add_argument("--isolated", type=int, default=60, help="tests run with --gilsan-isolate=test")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--hang-at", type=int, default=500, help="the test that hangs in the last run (-1: none)")
    parser.add_argument("--driver", default="sim", choices=("sim", "real"))
    args = parser.parse_args()
    if args.tests < 1 or args.rounds < 1 or not 0 <= args.isolated <= args.tests or args.hang_at >= args.tests:
        parser.error("need --tests >= 1, --rounds >= 1, 0 <= --isolated <= --tests, --hang-at < --tests")
    args.gilsan, args.module_dir = os.path.abspath(args.gilsan), os.path.abspath(args.module_dir)
    if not (os.access(args.python, os.X_OK) and
            subprocess.run([args.python, "-c", "import pytest"], capture_output=True).returncode == 0):
        print(f"SKIPPED: no pytest in {args.python}")
        return 77
    plugin = ["-p", "gilsan.pytest", f"--gilsan-driver={args.driver}"]
    times = {"plain": [], "session": [], "plain-isolated": [], "isolated": []}
    with tempfile.TemporaryDirectory(prefix="gilsan-plugin-bench-") as folder:
        write_tests(folder, args.tests)
        # Node ids, not -k: "-k test_1" would also pick test_10, test_100, ...
        isolated_selection = [f"test_callbacks_{index // PER_FILE:03d}.py::test_{index}" for index in range(args.isolated)]
        for round_index in range(1, args.rounds + 1):
            print(f"pytest-plugin-bench: round {round_index}/{args.rounds}", file=sys.stderr, flush=True)
            for name, options, selection in (("plain", [], None), ("session", plugin, None),
                                             ("plain-isolated", [], isolated_selection),
                                             ("isolated", plugin + ["--gilsan-isolate=test"], isolated_selection)):
                if name.endswith("isolated") and args.isolated == 0:
                    continue
                seconds, root = pytest_run(args, folder, options, selection)
                ran, failed = counts(root)
                if failed:
                    sys.exit(f"pytest-plugin-bench: {name}: {failed} of {ran} tests failed")
                times[name].append(seconds)
        print(f"{args.tests} short host-callback tests on driver {args.driver}; median of {args.rounds} interleaved "
              "rounds, seconds per session [min, max]")
        for name, seconds in times.items():
            if seconds:
                print(f"  {name:15} {statistics.median(seconds):8.2f} [{min(seconds):.2f}, {max(seconds):.2f}]")
        session_ratio = statistics.median(times["session"]) / statistics.median(times["plain"])
        print(f"session mode / plain pytest: {session_ratio:.2f}x (target <= 1.3x: {'met' if session_ratio <= 1.3 else 'missed'})")
        if times["isolated"]:
            ratio = statistics.median(times["isolated"]) / statistics.median(times["plain-isolated"])
            print(f"--gilsan-isolate=test / plain pytest, {args.isolated} tests: {ratio:.1f}x")
    if args.hang_at >= 0:
        with tempfile.TemporaryDirectory(prefix="gilsan-plugin-bench-") as folder:
            write_tests(folder, args.tests, hang_at=args.hang_at)
            seconds, root = pytest_run(args, folder, plugin)
            ran, failed = counts(root)
            hung = next(case for case in root.iter("testcase") if case.get("name") == f"test_{args.hang_at}")
            message = (hung.find("failure").get("message") or "") if hung.find("failure") is not None else ""
            named = float(hung.get("time", "nan"))
            verdict = message.splitlines()[0][:90] if message else "not failed"
            print(f"test {args.hang_at} hangs: named after {named:.2f} s ({verdict}); {ran} tests ran, "
                  f"{failed} failed, {ran - args.hang_at - 1} after it; session {seconds:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
