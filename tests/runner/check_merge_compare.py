#!/usr/bin/env python3
"""gilsan merge --compare on two results of the real driver (docs/guide/gilsan-in-ci.md): accepted when
their driver versions differ, the Markdown's comparison naming each side by its driver version; refused
in one line (exit 2, nothing written) when the two cannot be told apart.

usage: check_merge_compare.py GILSAN DATA

DATA holds compare/real-580.159.04.json and compare/real-590.48.01.json: the same four runs, one ending
differently under the later driver.
"""
import json
import os
import subprocess
import sys
import tempfile


def fail(message):
    print("CHECK FAILED:", message)
    sys.exit(1)


def merge(gilsan, arguments, expect_status):
    process = subprocess.run([gilsan, "merge", *arguments], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if process.returncode != expect_status:
        fail(f"gilsan merge {' '.join(arguments)}: exit {process.returncode}, expected {expect_status}\n"
             f"{process.stdout}\n{process.stderr}")
    return process


def refused(gilsan, arguments, markdown, expected):
    process = merge(gilsan, [*arguments, "--markdown", markdown], 2)
    if process.stderr != f"gilsan merge: {expected}\n":
        fail(f"refusal of {arguments}:\n  got      {process.stderr!r}\n  expected {expected!r}")
    if os.path.exists(markdown):
        fail(f"a refused merge wrote {markdown}")


def main():
    gilsan, data = sys.argv[1], sys.argv[2]
    older = os.path.join(data, "compare", "real-580.159.04.json")
    newer = os.path.join(data, "compare", "real-590.48.01.json")
    with tempfile.TemporaryDirectory(prefix="gilsan-compare-") as work:
        # The older run as a machine without NVML reports it: no driver version in its platform.
        no_platform = os.path.join(work, "no-driver-version.json")
        with open(older, encoding="utf-8") as stream:
            document = json.load(stream)
        document["platform"] = "NVIDIA H200, CUDA driver API 13.0; Python 3.12.3"
        with open(no_platform, "w", encoding="utf-8") as stream:
            json.dump(document, stream)
        markdown = os.path.join(work, "compare.md")
        merge(gilsan, [older, "--compare", newer, "--markdown", markdown], 0)
        with open(markdown, encoding="utf-8") as stream:
            text = stream.read()
        for expected in (
                "## Where the real 580.159.04 and the real 590.48.01 driver differ\n",
                "4 runs ran on both drivers",
                "| scenario | implementation | real 580.159.04 | real 590.48.01 |\n",
                "| scenarios/conformance/contract/borrowed_stream.py | cupy | `pass` | `deadlock:gil-driver-inversion` |\n"):
            if expected not in text:
                fail(f"the comparison lacks {expected!r}:\n{text}")
        comparison = text[text.index("## Where the"):]
        rows = [line for line in comparison.splitlines() if line.startswith("| scenarios/")]
        if len(rows) != 1:
            fail(f"the comparison lists {len(rows)} runs, expected the one that differs:\n{comparison}")

        # The same driver and gilsan with another release of an implementation: a peer's update.
        newer_release = os.path.join(work, "newer-release.json")
        with open(older, encoding="utf-8") as stream:
            document = json.load(stream)
        changed = 0
        for result in document["results"]:
            if result.get("implementation") == "cupy" and result.get("implementation_version"):
                result["implementation_version"] = result["implementation_version"].replace("14.2.0", "14.3.0")
                changed += 1
            if result["scenario"].endswith("borrowed_stream.py") and result.get("implementation") == "cupy":
                result["outcome"], result["status"] = "deadlock:gil-driver-inversion", "failed"
        with open(newer_release, "w", encoding="utf-8") as stream:
            json.dump(document, stream)
        if not changed:
            fail(f"{older} has no cupy run with its version: the release check would compare nothing")
        merge(gilsan, [older, "--compare", newer_release, "--markdown", markdown], 0)
        with open(markdown, encoding="utf-8") as stream:
            text = stream.read()
        for expected in ("## Where cupy-cuda13x 14.2.0 and cupy-cuda13x 14.3.0 differ (real 580.159.04 driver)\n",
                         "| scenario | implementation | cupy-cuda13x 14.2.0 | cupy-cuda13x 14.3.0 |\n",
                         "| scenarios/conformance/contract/borrowed_stream.py | cupy | `pass` | "
                         "`deadlock:gil-driver-inversion` |\n"):
            if expected not in text:
                fail(f"the releases' comparison lacks {expected!r}:\n{text[text.find('## Where'):]}")

        lacking = ("--compare needs results of another driver, driver version, gilsan or implementation versions: "
                   "both are of the real driver")
        refused(gilsan, [older, "--compare", older], markdown + ".same", f"{lacking} 580.159.04")
        refused(gilsan, [older, "--compare", no_platform], markdown + ".unknown",
                f"{lacking}, and the --compare results name no driver version in their platform")
        refused(gilsan, [no_platform, "--compare", older], markdown + ".unknown",
                f"{lacking}, and the merged results name no driver version in their platform")
        # Shards of one suite come from one driver version: two are not merged as one run.
        process = merge(gilsan, [older, newer], 2)
        if process.stderr != f"gilsan merge: {newer}: a run on driver 590.48.01, the others on driver 580.159.04: " \
                             "one suite at a time\n":
            fail(f"two driver versions merged as shards:\n{process.stderr}")
    print("merge --compare tells two versions of the real driver apart, and refuses what it cannot")


if __name__ == "__main__":
    main()
