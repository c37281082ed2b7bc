#!/usr/bin/env python3
"""gilsan with the profile its first release wrote (commit 9de6920), which lacks the entry points the
driver table gained since: `gilsan run --profile OLD` runs a scenario (simulated driver and sanitizer
reading OLD in the child) and says once, in one line, what OLD lacks; `gilsan probe --diff` lists those
entry points as new one way and removed the other, and their cells not at all.

usage: check_older_profile.py GILSAN OLD CURRENT SCENARIO
(SCENARIO: one whose outcome both profiles agree on; the run must match its expectation.)
"""
import json
import os
import subprocess
import sys
import tempfile

# In the order the one line names them (by name).
ADDED = [
    "cuCtxGetStreamPriorityRange", "cuDeviceGetMemPool", "cuDeviceGetUuid", "cuDeviceSetMemPool",
    "cuGraphAddChildGraphNode", "cuGraphAddDependencies", "cuGraphAddEventRecordNode", "cuGraphAddEventWaitNode",
    "cuGraphAddMemAllocNode", "cuGraphAddMemFreeNode", "cuGraphAddMemsetNode", "cuGraphAddNode",
    "cuGraphChildGraphNodeGetGraph", "cuGraphClone", "cuGraphConditionalHandleCreate", "cuGraphDestroyNode",
    "cuGraphGetEdges", "cuGraphGetNodes", "cuGraphGetRootNodes", "cuGraphHostNodeGetParams",
    "cuGraphInstantiateWithParams", "cuGraphMemAllocNodeGetParams", "cuGraphNodeFindInClone", "cuGraphNodeGetDependencies",
    "cuGraphNodeGetDependentNodes", "cuGraphNodeGetType", "cuGraphRemoveDependencies", "cuLaunchKernelEx",
    "cuMemPoolCreate", "cuMemPoolDestroy", "cuMemPoolGetAttribute", "cuMemPoolSetAttribute",
    "cuPointerGetAttribute", "cuPointerGetAttributes", "cuStreamBeginCaptureToGraph", "cuStreamGetPriority",
    "cuStreamUpdateCaptureDependencies"]


def fail(message):
    print("CHECK FAILED:", message)
    sys.exit(1)


def gilsan(command, expect_status):
    process = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if process.returncode != expect_status:
        fail(f"{' '.join(command)}: exit {process.returncode}, expected {expect_status}\n{process.stdout}\n{process.stderr}")
    return process


def main():
    binary, old, current, scenario = sys.argv[1:5]
    warning = f"gilsan: {old}: {len(ADDED)} entry points unmeasured (not in this profile): {', '.join(ADDED)}\n"

    with tempfile.TemporaryDirectory(prefix="gilsan-older-profile-") as work:
        report_path = os.path.join(work, "report.json")
        run = gilsan([binary, "run", scenario, "--driver", "sim", "--sanitize", "on", "--profile", old,
                      "--report", "json", "-o", report_path], 0)
        # The runner reads --profile twice (checked, then for the watchdog); the child's simulated
        # driver and sanitizer read it too: one line in all.
        if run.stderr != warning:
            fail(f"gilsan run --profile OLD wrote on stderr:\n{run.stderr!r}\nexpected the one line\n{warning!r}")
        with open(report_path, encoding="utf-8") as stream:
            report = json.load(stream)
        if report["status"] != "passed":
            fail(f"the scenario did not match its expectation with OLD: {report['outcome']}")
        if "unmeasured" in report["stderr"]:
            fail(f"the child said it again, in the scenario's stderr:\n{report['stderr']}")

    diff = gilsan([binary, "probe", "--diff", old, current], 1)
    if diff.stderr != warning:
        fail(f"probe --diff wrote on stderr:\n{diff.stderr!r}")
    lines = diff.stdout.splitlines()
    new = [line for line in lines if "entry point" in line]
    named = sorted(line.split(":")[0].removeprefix("new entry point ") for line in new)
    if named != ADDED or not all(line.startswith("new entry point ") for line in new):
        fail(f"probe --diff OLD CURRENT did not list the new entry points:\n{diff.stdout}")
    if "new entry point cuDeviceGetUuid: inside_host_function not-permitted, while_host_function_runs returns" not in lines:
        fail(f"the new entry point's answers are not CURRENT's:\n{diff.stdout}")
    if any(f".{entry}:" in line for line in lines for entry in ADDED):
        fail(f"probe --diff compared a cell of an entry point OLD lacks:\n{diff.stdout}")

    back = gilsan([binary, "probe", "--diff", current, old], 1)
    removed = [line for line in back.stdout.splitlines() if line.startswith("removed entry point ")]
    if len(removed) != len(ADDED):
        fail(f"probe --diff CURRENT OLD did not list the removed entry points:\n{back.stdout}")
    print(f"the first release's profile runs a scenario and diffs: {len(lines)} changes, {len(new)} new entry points")


if __name__ == "__main__":
    main()
