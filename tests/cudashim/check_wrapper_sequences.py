"""The forwarding driver's wrappers under random sequences: gilsan_wrapper_sequences runs the same seeds
on the bare simulated driver and through the forwarding driver in front of it (under `gilsan run
--driver real --sanitize on`, where the wrappers are live); every call's result and every host function
run must be the same, and the gilsan run clean (outcome pass: no crash, no sanitizer report).

usage: check_wrapper_sequences.py GILSAN SEQUENCES SIM_FOLDER FIRST_SEED LAST_SEED OPERATIONS
Exit status: 0 the same, 1 a difference (the first differing line of the first differing seed), 2 usage.
"""
import difflib
import json
import os
import subprocess
import sys
import tempfile


def main():
    if len(sys.argv) != 7:
        sys.exit(__doc__)
    gilsan, sequences, sim_folder, first, last, operations = sys.argv[1:]
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = sim_folder + os.pathsep + env.get("LD_LIBRARY_PATH", "")
    program = [sequences, first, last, operations]
    bare = subprocess.run(program, env=env, capture_output=True, text=True, timeout=600)
    if bare.returncode != 0:
        print(f"on the bare simulated driver: exit {bare.returncode}\n{bare.stderr[-3000:]}")
        return 1
    with tempfile.TemporaryDirectory(prefix="gilsan-sequences-") as folder:
        report_path = os.path.join(folder, "report.json")
        subprocess.run([gilsan, "run", "--driver", "real", "--sanitize", "on", "--timeout", "300",
                        "--report", "json", "-o", report_path, "--"] + program,
                       env=env, capture_output=True, text=True, timeout=900)
        with open(report_path, encoding="utf-8") as file:
            report = json.load(file)
    if report["stdout"] != bare.stdout:
        diff = difflib.unified_diff(bare.stdout.splitlines(), report["stdout"].splitlines(), "bare simulated driver",
                                    "through the forwarding driver", lineterm="", n=8)
        print("\n".join(list(diff)[:80]))
        print(report["stderr"][-3000:])
        return 1
    if report["outcome"] != "pass":
        sanitizer = (report.get("sanitizer") or {}).get("text") or ""
        print(f"through the forwarding driver: outcome {report['outcome']}\n{sanitizer[:5000]}\n{report['stderr'][-3000:]}")
        return 1
    calls = sum(1 for line in bare.stdout.splitlines() if line.startswith("cu"))
    runs = sum(line.count("*") for line in bare.stdout.splitlines() if line.startswith("ran:"))
    print(f"seeds {first}-{last}: {calls} calls and {runs} host-function tags the same both ways")
    return 0


if __name__ == "__main__":
    sys.exit(main())
