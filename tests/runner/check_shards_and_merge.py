#!/usr/bin/env python3
"""Runs a suite in two shards with --json, merges them with `gilsan merge`, and checks that the merge
has every run of the unsharded suite exactly once, with the same outcomes; then that merging a shard
twice is refused (exit 2, naming the file).

usage: check_shards_and_merge.py GILSAN FOLDER [SUITE_OPTION...]
"""
import json
import os
import subprocess
import sys
import tempfile


def run(command, expect_status):
    process = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if process.returncode != expect_status:
        sys.exit(f"{' '.join(command)}: exit {process.returncode}, expected {expect_status}\n"
                 f"{process.stdout}\n{process.stderr}")
    return process


def runs_of(path):
    with open(path, encoding="utf-8") as stream:
        document = json.load(stream)
    return sorted((r["scenario"], r["implementation"] or "", r["outcome"]) for r in document["results"])


def main():
    gilsan, folder, options = sys.argv[1], sys.argv[2], sys.argv[3:]
    with tempfile.TemporaryDirectory(prefix="gilsan-shards-") as work:
        whole, first, second, merged = (os.path.join(work, name) for name in ("all.json", "1.json", "2.json", "m.json"))
        run([gilsan, "suite", folder, "--json", whole, *options], 0)
        run([gilsan, "suite", folder, "--shard", "1/2", "--json", first, *options], 0)
        run([gilsan, "suite", folder, "--shard", "2/2", "--json", second, *options], 0)
        if not runs_of(first) or not runs_of(second):
            sys.exit("a shard ran nothing: the test needs a folder with at least two runs")
        merge = run([gilsan, "merge", first, second, "--json", merged], 0)
        if runs_of(merged) != runs_of(whole):
            sys.exit(f"the merged shards differ from the whole suite:\n{runs_of(merged)}\n{runs_of(whole)}")
        if "conformance (ok: as expected" not in merge.stdout:
            sys.exit(f"the merge printed no matrix:\n{merge.stdout}")
        twice = run([gilsan, "merge", first, second, first], 2)
        if f"{first}: " not in twice.stderr or "is in two shards" not in twice.stderr:
            sys.exit(f"the overlap was not named:\n{twice.stderr}")
    print("two shards merged back into the whole suite")


if __name__ == "__main__":
    main()
