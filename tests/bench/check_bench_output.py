"""Runs `gilsan bench --driver sim --quick` and checks that its outputs parse and hold every row, ratio
and curve point the JSON schema names (docs/performance.md); never checks a time. Then checks that bad
arguments are one line and exit 2, before any measuring."""
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree


def run(gilsan, *arguments):
    return subprocess.run([gilsan, "bench", *arguments], capture_output=True, text=True, timeout=600)


def check_outputs(gilsan, folder):
    paths = {kind: os.path.join(folder, f"bench.{kind}") for kind in ("json", "md", "svg")}
    result = run(gilsan, "--driver", "sim", "--quick", "--json", paths["json"], "--markdown", paths["md"],
                 "--svg", paths["svg"])
    assert result.returncode == 0, result.stderr
    assert "round 1/" in result.stderr, "no progress lines: " + result.stderr
    with open(paths["json"], encoding="utf-8") as document_file:
        document = json.load(document_file)
    assert document["schema"] == "gilsan-bench/1"
    assert document["header"]["driver_kind"] == "sim"
    ids = {row["id"] for row in document["rows"]}
    for needed in ("reference/python-loop", "reference/python-held", "reference/native-loop", "reference/native-held",
                   "raw/native-loop", "raw/python-loop", "raw/python-held", "reference/graph-100", "reference/graph-2000",
                   *(f"sanitizer-{state}/{workload}" for state in ("no-native-locks", "off", "on")
                     for workload in ("python-loop", "python-held", "native-loop", "native-held"))):
        assert needed in ids, f"row {needed} missing: {sorted(ids)}"
    by_id = {row["id"]: row for row in document["rows"]}
    for row_id in ("sanitizer-no-native-locks/native-loop", "sanitizer-off/native-loop", "sanitizer-on/python-loop"):  # `gilsan run` works on the sim
        assert "median_us" in by_id[row_id], by_id[row_id]
    # No CUPTI on the sim, nor a real driver for the forwarding driver to stand in front of: said, not measured.
    for group in ("not-injected", "injected", "cupti-floor", "sanitizer-forwarding"):
        assert "not available on the simulated driver" in by_id[f"{group}/native-loop"]["status"], by_id
    check_latencies(document)
    for row in document["rows"]:
        if "status" in row:
            assert row["status"], row
            continue
        samples = row["samples_us"]
        assert len(samples) == document["settings"]["rounds"], row
        assert row["min_us"] <= row["median_us"] <= row["max_us"], row
    for item in document["ratios"]:
        assert {"name", "numerator", "target", "value"} <= set(item), item
        if "met" in item:  # made round by round too, from the same rounds' samples
            assert item.get("rounds") == document["settings"]["rounds"], item
            assert 0 <= item["rounds_met"] <= item["rounds"], item
    # An earlier run rendered again, one recorded without its comparisons (as a run from before a
    # comparison was added lacks it): the same comparisons, made again from its rows.
    earlier = os.path.join(folder, "earlier.json")
    with open(earlier, "w", encoding="utf-8") as out:
        json.dump({key: value for key, value in document.items() if key != "ratios"}, out)
    again = os.path.join(folder, "again.md")
    result = run(gilsan, "--from-json", earlier, "--markdown", again)
    assert result.returncode == 0, result.stderr
    with open(again, encoding="utf-8") as rendered, open(paths["md"], encoding="utf-8") as first:
        again_table, first_table = comparison_table(rendered.read()), comparison_table(first.read())
    assert first_table and "rounds met" in first_table[0] and again_table == first_table, (first_table, again_table)
    depths = [point["depth"] for point in document["curves"]["queue_depth_python_held"]]
    assert depths and depths == sorted(depths), depths
    with open(paths["md"], encoding="utf-8") as markdown:
        text = markdown.read()
    assert "| Row | us per callback | spread |" in text and "| Latency | unit | p50 | p99 |" in text and "bench.svg" in text
    ElementTree.parse(paths["svg"])  # well-formed XML


def comparison_table(markdown):
    """The lines of the Markdown's comparison table, its header first."""
    lines = markdown.splitlines()
    start = next((index for index, line in enumerate(lines) if line.startswith("| Comparison (same run)")), None)
    if start is None:
        return []
    end = next((index for index in range(start, len(lines)) if not lines[index].startswith("|")), len(lines))
    return lines[start:end]


def check_latencies(document):
    """Start latency (gilsan and the raw driver) and detection latency, each p50 <= p99 per round."""
    latencies = {entry["id"]: entry for entry in document["latencies"]}
    for needed in ("reference/start-python", "reference/start-native", "raw/start-python", "raw/start-native",
                   "detection/gil-inversion"):
        entry = latencies.get(needed)
        assert entry is not None and "p50" in entry and "p99" in entry, (needed, entry)
        rounds = document["settings"]["rounds"]
        assert len(entry["p50"]["samples_us"]) == len(entry["p99"]["samples_us"]) == rounds, entry
        assert all(low <= high for low, high in zip(entry["p50"]["samples_us"], entry["p99"]["samples_us"])), entry
    assert latencies["detection/gil-inversion"]["quiet_ms"] > 0
    names = {item["name"] for item in document["ratios"]}
    assert "detection p99 in ms (target: quiet period + 200 ms)" in names, names
    assert any(name.startswith("sanitizer in-process on vs off") for name in names), names


def check_bad_arguments(gilsan, folder):
    for arguments, says in ((("--impl", "nope"), "--impl nope: unknown"),
                            (("--driver", "gpu"), "--driver gpu: expected real or sim"),
                            (("--json", os.path.join(folder, "missing", "x.json")), "no folder"),
                            (("--frobnicate",), "unknown option")):
        result = run(gilsan, *arguments)
        assert result.returncode == 2, (arguments, result.returncode, result.stderr)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and says in lines[0], (arguments, result.stderr)
    # An earlier run to render that is not one: the file (and, for bad JSON, the line) in one line.
    not_json = os.path.join(folder, "not.json")
    with open(not_json, "w", encoding="utf-8") as out:
        out.write('{"schema": "gilsan-bench/1",\n  "rows": [,]}\n')
    other_json = os.path.join(folder, "other.json")
    with open(other_json, "w", encoding="utf-8") as out:
        out.write('{"rows": []}\n')
    incomplete = os.path.join(folder, "incomplete.json")
    with open(incomplete, "w", encoding="utf-8") as out:
        out.write('{"schema": "gilsan-bench/1", "rows": [{"id": "x"}]}\n')
    for path, says in ((not_json, f"{not_json}:2: not JSON"), (other_json, f"{other_json}:1: not a"),
                       (incomplete, f"{incomplete}: not a complete")):
        result = run(gilsan, "--from-json", path, "--markdown", os.path.join(folder, "out.md"))
        assert result.returncode == 2, (path, result.returncode, result.stderr)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and says in lines[0], (path, result.stderr)


def main():
    gilsan = sys.argv[1]
    with tempfile.TemporaryDirectory() as folder:
        check_bad_arguments(gilsan, folder)
        check_outputs(gilsan, folder)
    print("gilsan bench: outputs parse")


if __name__ == "__main__":
    main()
