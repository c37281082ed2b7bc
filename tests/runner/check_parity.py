#!/usr/bin/env python3
"""Compares a suite run on the simulated driver with a committed run of the same scenarios on a real
GPU: every scenario that ran on both must have the same outcome. A difference is either a fault of the
simulated driver's model or profile, or of what the sanitizer sees -- never something to accept
silently -- unless the committed run's `explained` map names the scenario with the measured driver
difference (a profile cell) that explains it.

usage: check_parity.py SIM_RESULTS.json REAL_RESULTS.json
       check_parity.py --run GILSAN SCENARIO_FOLDER REAL_RESULTS.json [SUITE_OPTION...]
       check_parity.py --table SIM_RESULTS.json REAL_RESULTS.json
Both files are `gilsan suite --json` documents (gilsan-suite-results/1); the real one may carry an
"explained" object {scenario: reason}, and a "void" one {scenario: reason} for runs whose real outcome is
no measurement (gilsan merge reads it too): those are listed and not compared. Runs are matched by the scenario's path from the scenarios
folder and, for a conformance scenario, its implementation ("conformance/x.py [cupy]").
With --run, the simulated driver's run is made first: GILSAN suite SCENARIO_FOLDER --driver sim, with
any SUITE_OPTIONs after it (--impl, --python-env, --jobs).
With --table, prints the side-by-side table as Markdown instead (a row per scenario of either run: its
expectation, the outcome on each driver, skipped ones said so, whether they agree where both ran it).
Exit status: 0 the outcomes agree, 1 they do not, 2 bad input.
"""
import json
import os
import subprocess
import sys
import tempfile

SCHEMA = "gilsan-suite-results/1"


def load(path):
    try:
        with open(path, encoding="utf-8") as stream:
            document = json.load(stream)
    except (OSError, ValueError) as error:
        sys.exit(f"{path}: {error}")
    if document.get("schema") != SCHEMA:
        sys.exit(f"{path}: not a {SCHEMA} document")
    return document


def key(record):
    """The scenario's path from the scenarios folder, wherever the suite ran, and its implementation."""
    scenario = record["scenario"]
    marker = "scenarios/"
    name = scenario[scenario.rindex(marker) + len(marker):] if marker in scenario else scenario
    return f"{name} [{record['implementation']}]" if record.get("implementation") else name


def run_on_sim(gilsan, folder, output, options):
    suite = subprocess.run([gilsan, "suite", folder, "--driver", "sim", "--json", output, *options],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    sys.stdout.write(suite.stdout)
    if suite.returncode not in (0, 1):  # 1: some scenario did not match its own expectation
        sys.exit(f"check_parity: gilsan suite exited with {suite.returncode}")


def cell(record):
    if record is None:
        return "-"
    return "skipped" if record["status"] == "skipped" else f"`{record['outcome']}`"


def table(sim, real):
    sim_records = {key(r): r for r in sim["results"]}
    real_records = {key(r): r for r in real["results"]}
    void = real.get("void", {})
    print("| scenario | expected | sim | real | agree |")
    print("| --- | --- | --- | --- | --- |")
    both = disagreements = 0
    for name in sorted(set(sim_records) | set(real_records)):
        s, r = sim_records.get(name), real_records.get(name)
        ran_on_both = (s is not None and r is not None and "skipped" not in (s["status"], r["status"])
                       and name not in void)
        both += ran_on_both
        agree = "" if not ran_on_both else "yes" if s["outcome"] == r["outcome"] else "**no**"
        disagreements += agree == "**no**"
        real_cell = f"void (was `{r['outcome']}`)" if r is not None and name in void else cell(r)
        print(f"| {name} | `{(r or s)['expect']}` | {cell(s)} | {real_cell} | {agree} |")
    print(f"\n{both} scenarios ran on both drivers; {disagreements} disagree; {len(void)} real runs are void.")
    return 1 if disagreements else 0


def main():
    arguments = sys.argv[1:]
    if len(arguments) == 3 and arguments[0] == "--table":
        return table(load(arguments[1]), load(arguments[2]))
    if len(arguments) >= 4 and arguments[0] == "--run":
        with tempfile.TemporaryDirectory(prefix="gilsan-parity-") as folder:
            sim_path = os.path.join(folder, "sim.json")
            run_on_sim(arguments[1], arguments[2], sim_path, arguments[4:])
            differing = []
            status = compare(load(sim_path), load(arguments[3]), differing)
            for record in differing:
                show_again(arguments[1], record, arguments[4:])
            return status
    if len(arguments) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    return compare(load(arguments[0]), load(arguments[1]))


def show_again(gilsan, record, suite_options):
    """A run that disagreed with the GPU, once more with every thread and frame (--report full), so that
    a disagreement that comes and goes leaves the evidence of what the watchdog saw. It does not change
    the verdict."""
    command = [gilsan, "run", record["scenario"], "--driver", "sim", "--report", "full"]
    if record.get("implementation"):
        command += ["--impl", record["implementation"]]
    if "--python-env" in suite_options:
        command += ["--python-env", suite_options[suite_options.index("--python-env") + 1]]
    again = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    print(f"--- {key(record)} once more (exit {again.returncode}), every thread and frame:")
    sys.stdout.write(again.stdout)
    print(f"--- end of {key(record)}")


def compare(sim, real, differing=None):
    """0 when every run of both agrees; the sim's runs that do not are appended to `differing`."""
    if sim.get("driver") != "sim" or real.get("driver") != "real":
        print("check_parity: the first run must be on the simulated driver, the second on the real one",
              file=sys.stderr)
        return 2
    sim_outcomes = {key(r): r for r in sim["results"]}
    explained = real.get("explained", {})
    void = real.get("void", {})
    compared, disagreements = 0, []
    for name, reason in sorted(void.items()):
        print(f"VOID  {name}: not compared ({reason})")
    for record in real["results"]:
        name = key(record)
        if name in void:
            continue
        other = sim_outcomes.get(name)
        if other is None or "skipped" in (record["status"], other["status"]):
            continue
        compared += 1
        if other["outcome"] != record["outcome"] and name not in explained:
            disagreements.append(f"{name}: real {record['outcome']}, sim {other['outcome']}")
            if differing is not None:
                differing.append(other)
    missing = sorted(set(sim_outcomes) - {key(r) for r in real["results"]})
    for line in disagreements:
        print(f"DIFFERENT  {line}")
    for name in missing:
        print(f"NOT ON THE GPU  {name}: no real run committed for it")
    print(f"{compared} compared, {len(disagreements)} different, {len(missing)} without a real run")
    return 1 if disagreements or missing or compared == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
