#!/usr/bin/env python3
"""ci/peer-own-tests.py end to end on a small stand-in for a peer's test folder: pytest plainly and under
`gilsan run --driver sim`, then the per-test comparison. One test passes only where the loaded libcuda.so.1
is the simulated driver, so exactly one test differs, whatever driver this machine has.

usage: check_peer_own_tests.py --python PY (with pytest) --gilsan GILSAN --tool ci/peer-own-tests.py
Exit 0 pass, 1 fail, 77 skipped (no such python: the pytest venv is absent).
"""
import argparse
import os
import pathlib
import subprocess
import sys
import tempfile

TESTS = '''
import ctypes
import pytest

def test_passes():
    assert 1 + 1 == 2

def test_fails():
    assert 1 + 1 == 3

@pytest.mark.skip(reason="skipped on purpose")
def test_skipped():
    pass

def test_sees_the_simulated_driver():
    library = ctypes.CDLL("libcuda.so.1")  # OSError where there is no driver at all
    assert hasattr(library, "gilsanSimLaunchWork")
'''


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--python", required=True)
    parser.add_argument("--gilsan", required=True)
    parser.add_argument("--tool", required=True)
    args = parser.parse_args()
    if not os.path.exists(args.python):
        print(f"SKIP: {args.python} does not exist (no pytest venv)")
        return 77
    failures = []
    with tempfile.TemporaryDirectory(prefix="gilsan-peer-own-") as scratch:
        scratch = pathlib.Path(scratch)
        (scratch / "peer" / "tests").mkdir(parents=True)
        (scratch / "peer" / "tests" / "test_stand_in.py").write_text(TESTS)
        out = scratch / "out"
        ran = subprocess.run([sys.executable, args.tool, "run", "--checkout", str(scratch / "peer"), "--python",
                              args.python, "--gilsan", args.gilsan, "--out", str(out), "--driver", "plain",
                              "--driver", "sim", "--timeout", "120", "tests"],
                             capture_output=True, text=True, timeout=300, check=False)
        print(ran.stdout + ran.stderr)
        if "sim: exit 1 in" not in ran.stdout or "2 passed, 1 failed, 1 skipped" not in ran.stdout:
            failures.append("the sim run did not report 2 passed, 1 failed, 1 skipped")
        markdown = out / "table.md"
        compared = subprocess.run([sys.executable, args.tool, "compare", str(out / "junit-plain.xml"),
                                   str(out / "junit-sim.xml"), "--label-a", "plain", "--markdown", str(markdown),
                                   "--tsv", str(out / "all.tsv")],
                                  capture_output=True, text=True, timeout=60, check=False)
        print(compared.stdout + compared.stderr)
        if compared.stdout.strip() != "plain vs sim: 3 of 4 tests have the same outcome (75.0%)":
            failures.append("the comparison's first line is not the expected count")
        table = markdown.read_text() if markdown.exists() else ""
        if "| `tests.test_stand_in::test_sees_the_simulated_driver` | failed | passed |" not in table:
            failures.append("the differing test is not listed with both outcomes")
        rows = (out / "all.tsv").read_text().splitlines() if (out / "all.tsv").exists() else []
        if len(rows) != 5 or "tests.test_stand_in::test_skipped\tskipped\tskipped" not in rows:
            failures.append(f"the tsv does not list each test's two outcomes: {rows}")
        # Bad input: a clear one-line error, not a traceback.
        (out / "broken.xml").write_text("<testsuite><testcase")
        broken = subprocess.run([sys.executable, args.tool, "compare", str(out / "broken.xml"),
                                 str(out / "junit-sim.xml")], capture_output=True, text=True, timeout=60, check=False)
        if broken.returncode == 0 or "broken.xml" not in broken.stderr or "Traceback" in broken.stderr:
            failures.append(f"a malformed junit file gave: {broken.returncode} {broken.stderr!r}")
        missing = subprocess.run([sys.executable, args.tool, "run", "--checkout", str(scratch / "nowhere"),
                                  "--python", args.python, "--gilsan", args.gilsan, "--out", str(out), "tests"],
                                 capture_output=True, text=True, timeout=60, check=False)
        if missing.returncode == 0 or "nowhere: no such folder" not in missing.stderr:
            failures.append(f"a missing checkout gave: {missing.returncode} {missing.stderr!r}")
    for failure in failures:
        print(f"FAIL: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
