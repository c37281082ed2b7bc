#!/usr/bin/env python3
"""A peer's own test files on the real driver and on the simulated driver, compared test by test.

The test files are the peer's, fetched at a pinned commit into a git-ignored folder (never committed);
docs/simulated-driver-entry-points.md says how. Two verbs:

  ci/peer-own-tests.py run --checkout DIR --python PY --gilsan GILSAN --out OUT [--driver plain|real|sim ...]
                           [--timeout S] TEST_PATH...
      runs pytest on TEST_PATH (relative to DIR) once per driver, writing OUT/junit-DRIVER.xml:
      plain = pytest alone on this machine's driver; real / sim = under `gilsan run --driver real|sim`
      with the sanitizer on; sim-empty-kernels = sim with GILSAN_SIM_KERNELS=empty (a kernel the sim
      cannot run is launched as empty device work).
  ci/peer-own-tests.py compare A.xml B.xml [--markdown FILE] [--tsv FILE] [--label-a NAME --label-b NAME]
      the per-test table: how many tests have the same outcome, and each that differs with both messages,
      the differences grouped by the entry point or error that caused them (--tsv: every test's two
      outcomes). Exit 0 when written.
"""
import argparse
import collections
import os
import pathlib
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ElementTree

DRIVERS = ("plain", "real", "sim", "sim-empty-kernels")


def run(args):
    checkout = pathlib.Path(args.checkout).resolve()
    out = pathlib.Path(args.out).resolve()
    if not checkout.is_dir():
        sys.exit(f"peer-own-tests: {checkout}: no such folder (fetch the peer's tests there first)")
    missing = [path for path in args.paths if not (checkout / path).exists()]
    if missing:
        sys.exit(f"peer-own-tests: {checkout}: no {', '.join(missing)}")
    out.mkdir(parents=True, exist_ok=True)
    # The runs start in the checkout: paths given relative to here are made absolute first.
    args.gilsan = os.path.abspath(args.gilsan)
    if os.sep in args.python:
        args.python = os.path.abspath(args.python)
    status = 0
    for driver in args.driver:
        junit = out / f"junit-{driver}.xml"
        # No --showlocals (the peer's addopts) in the logs; a module that does not import on this version
        # of the package is an error of its tests, not the end of the run.
        pytest = [args.python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=",
                  "--continue-on-collection-errors", f"--junitxml={junit}", *args.paths]
        command = pytest if driver == "plain" else [
            args.gilsan, "run", "--driver", driver.split("-")[0], "--sanitize", "on", "--timeout", str(args.timeout),
            "--", *pytest]
        environment = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        if driver == "sim-empty-kernels":
            environment["GILSAN_SIM_KERNELS"] = "empty"
        print(f"peer-own-tests: {driver}: {' '.join(command)}", flush=True)
        started = time.monotonic()
        with open(out / f"log-{driver}.txt", "w") as log:
            result = subprocess.run(command, cwd=checkout, stdout=log, stderr=subprocess.STDOUT,
                                    env=environment, check=False)
        counts = summarize(junit) if junit.exists() else "no junit written"
        print(f"peer-own-tests: {driver}: exit {result.returncode} in {time.monotonic() - started:.1f} s: {counts}",
              flush=True)
        if not junit.exists():
            # pytest never finished: what the run printed last says why.
            tail = (out / f"log-{driver}.txt").read_text(errors="replace").splitlines()[-40:]
            print("\n".join(f"peer-own-tests: {driver}: | {line}" for line in tail), flush=True)
            status = 1
    return status


def outcomes(path):
    """{test id: (outcome, first line of its message)} of a junit file; outcome passed/failed/error/skipped."""
    try:
        tree = ElementTree.parse(path)
    except (OSError, ElementTree.ParseError) as error:
        sys.exit(f"peer-own-tests: {path}: {error}")
    result = {}
    for case in tree.iter("testcase"):
        name = f"{case.get('classname', '')}::{case.get('name', '')}"
        outcome, message = "passed", ""
        for kind in ("error", "failure", "skipped"):
            element = case.find(kind)
            if element is not None:
                outcome = {"failure": "failed"}.get(kind, kind)
                message = (element.get("message") or element.text or "").strip().splitlines()[0:1]
                message = message[0] if message else ""
                break
        # A test that fails and then errors in teardown appears twice: the worse outcome stays.
        if name not in result or result[name][0] == "passed":
            result[name] = (outcome, message)
    return result


def summarize(path):
    counts = collections.Counter(outcome for outcome, _ in outcomes(path).values())
    return ", ".join(f"{counts[kind]} {kind}" for kind in ("passed", "failed", "error", "skipped") if counts[kind])


NOT_FOUND = re.compile(r'Function "(\w+)" not found')


def cause(message):
    """What a difference comes from, in a few words: the entry point the sim lacks, or the error's name."""
    found = NOT_FOUND.search(message)
    if found:
        return f"{found.group(1)} is not modeled by the simulated driver"
    # The driver's own error name says more than the exception class that carries it.
    named = re.search(r"\b(CUDA_ERROR_[A-Z_]+)\b", message) or re.search(r"\b(\w*Error)\b", message)
    return named.group(1) if named else (message[:60] or "(no message)")


def compare(args):
    a, b = outcomes(args.a), outcomes(args.b)
    names = sorted(set(a) | set(b))
    same = [name for name in names if a.get(name, ("absent",))[0] == b.get(name, ("absent",))[0]]
    differ = [name for name in names if name not in same]
    share = 100.0 * len(same) / len(names) if names else 100.0
    lines = [f"# {args.label_a} vs {args.label_b}: {len(same)} of {len(names)} tests have the same outcome "
             f"({share:.1f}%)", ""]
    by_outcome = collections.Counter((a.get(name, ("absent",))[0], b.get(name, ("absent",))[0]) for name in names)
    lines += [f"| {args.label_a} | {args.label_b} | tests |", "| --- | --- | --- |"]
    lines += [f"| {x} | {y} | {count} |" for (x, y), count in sorted(by_outcome.items())]
    groups = collections.Counter(cause(b.get(name, ("", ""))[1] or a.get(name, ("", ""))[1]) for name in differ)
    if differ:
        lines += ["", "## The differences by cause", "", "| cause | tests |", "| --- | --- |"]
        lines += [f"| {text} | {count} |" for text, count in groups.most_common()]
        lines += ["", "## Each test that differs", "", f"| test | {args.label_a} | {args.label_b} | message |",
                  "| --- | --- | --- | --- |"]
        for name in differ:
            x, y = a.get(name, ("absent", "")), b.get(name, ("absent", ""))
            message = (y[1] or x[1]).replace("|", "\\|")[:160]
            lines.append(f"| `{name}` | {x[0]} | {y[0]} | {message} |")
    text = "\n".join(lines) + "\n"
    if args.markdown:
        pathlib.Path(args.markdown).write_text(text)
    if args.tsv:  # every test, the same outcome or not
        rows = [f"test\t{args.label_a}\t{args.label_b}"]
        rows += [f"{name}\t{a.get(name, ('absent',))[0]}\t{b.get(name, ('absent',))[0]}" for name in names]
        pathlib.Path(args.tsv).write_text("\n".join(rows) + "\n")
    print(lines[0].lstrip("# "))
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    verbs = parser.add_subparsers(dest="verb", required=True)
    running = verbs.add_parser("run")
    running.add_argument("--checkout", required=True)
    running.add_argument("--python", required=True)
    running.add_argument("--gilsan", required=True)
    running.add_argument("--out", required=True)
    running.add_argument("--driver", action="append", choices=DRIVERS)
    running.add_argument("--timeout", type=int, default=1200)
    running.add_argument("paths", nargs="+")
    comparing = verbs.add_parser("compare")
    comparing.add_argument("a")
    comparing.add_argument("b")
    comparing.add_argument("--markdown")
    comparing.add_argument("--tsv", help="also write every test's two outcomes, one line each")
    comparing.add_argument("--label-a", default="real")
    comparing.add_argument("--label-b", default="sim")
    args = parser.parse_args()
    if args.verb == "run":
        args.driver = args.driver or ["plain", "sim"]
        return run(args)
    return compare(args)


if __name__ == "__main__":
    sys.exit(main())
