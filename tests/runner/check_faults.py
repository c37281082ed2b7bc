"""Runs the fault scenarios (tests/runner/data/faults) as one suite with a private TMPDIR and checks
that every one ended as its header says and the suite went on to the next, and that nothing is left
behind: no file or folder in that TMPDIR (boards, driver folders, sanitizer reports) and no process
carrying this check's token in its environment (the runner passes its environment on to each child).

usage: check_faults.py GILSAN FAULTS_DIR [DRIVER]   (DRIVER: sim, the default, or real on a GPU machine)
"""
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid


def processes_with(entry):
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as environ:
                if entry in environ.read().split(b"\0"):
                    found.append(int(name))
        except OSError:
            continue  # gone, or not ours
    return found


def main():
    gilsan, faults = sys.argv[1], sys.argv[2]
    driver = sys.argv[3] if len(sys.argv) > 3 else "sim"
    jobs = "2" if driver == "sim" else "1"  # one run at a time on a GPU (the suite's own default there)
    scenarios = sorted(name for name in os.listdir(faults) if name.endswith(".py"))
    token = f"GILSAN_FAULT_CHECK={uuid.uuid4().hex}"
    with tempfile.TemporaryDirectory(prefix="gilsan-faults-") as work:
        private_tmp = os.path.join(work, "tmp")
        os.mkdir(private_tmp)
        results = os.path.join(work, "results.json")
        environment = dict(os.environ, TMPDIR=private_tmp)
        environment[token.split("=")[0]] = token.split("=", 1)[1]
        done = subprocess.run([gilsan, "suite", faults, "--driver", driver, "--jobs", jobs, "--json", results],
                              capture_output=True, text=True, env=environment, timeout=300)
        print(done.stdout, end="")
        print(done.stderr, end="", file=sys.stderr)
        problems = []
        if done.returncode != 0:
            problems.append(f"gilsan suite exited {done.returncode}: a fault did not end as its scenario says")
        with open(results) as file:
            ran = [result["scenario"] for result in json.load(file)["results"]]
        if len(ran) != len(scenarios):
            problems.append(f"{len(ran)} of {len(scenarios)} scenarios have a result: the suite stopped early")
        left = sorted(os.listdir(private_tmp))
        if left:
            problems.append(f"left in TMPDIR: {', '.join(left)}")
        deadline = time.monotonic() + 2  # a process killed at the end may take a moment to go
        while (alive := processes_with(token.encode())) and time.monotonic() < deadline:
            time.sleep(0.05)
        if alive:
            problems.append(f"processes of the suite still alive: {alive}")
    for problem in problems:
        print(f"CHECK FAILED: {problem}", file=sys.stderr)
    if not problems:
        print(f"{len(scenarios)} faults, each as expected; nothing left behind")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
