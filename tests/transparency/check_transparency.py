"""Transparency: a correct program behaves under gilsan exactly as it does without it.

Each program runs twice on the simulated driver standing in for the real one (DRIVER_FOLDER holds it as
libcuda.so.1): plainly, and under `gilsan run --driver real --sanitize on --`, where the forwarding
driver, the injected sanitizer and Python lock tracing are loaded into it. Both runs must end with the
same exit status and print the same standard output (hexadecimal addresses aside), and the gilsan run
must be clean: outcome pass, no sanitizer report. In a sanitizer build the caller preloads ASan into
both (LD_PRELOAD, ASAN_OPTIONS): whatever gilsan's libraries do wrong in the program is an ASan error,
which changes the exit status (TRANSPARENCY_ASAN_EXIT) and is shown.

The programs:
  --programs DIR      every *.py in DIR (peer-style programs of our own; each must pass plainly)
  --scenarios DIR     every scenario under DIR that expects pass and runs on the simulated driver
                      (conformance scenarios aside), with the gilsan module on PYTHONPATH
  --conformance FILE  the conformance pairs FILE (a suite's JSON of a real-driver run) records as
                      expected and passed, for the implementations of --impl

usage: check_transparency.py --gilsan BIN --driver-folder DIR [--python PY] [--module-path DIR]
         [--impl-path DIR] [--impl NAMES] [--programs DIR] [--scenarios DIR] [--conformance FILE]
         [--jobs N] [--timeout S]
Exit status: 0 every program the same both ways, 1 a difference (each named), 2 bad usage.
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from scenario_header_lines import header_lines  # noqa: E402  (tests/, beside this folder)

ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
# A duration the program measured and printed ("ran 0.31 s after ..."): the same behaviour gives
# another reading each run, plainly or not.
DURATION = re.compile(r"\b\d+\.\d+ ?(?:s|ms|us)\b")
# An ASan or UBSan error ends the program with this status, which no program of the set uses.
TRANSPARENCY_ASAN_EXIT = 97


def listed(value):
    return [item.strip() for item in value.split(",") if item.strip()]


class Program:
    def __init__(self, name, argv, env):
        self.name, self.argv, self.env = name, argv, env


def module_available(python, module):
    return subprocess.run([python, "-c", f"import importlib.util, sys; sys.exit(importlib.util.find_spec('{module}') is None)"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0


def header_env(path, header):
    """What `gilsan run` takes from a scenario's header that changes how it runs: the module loading mode
    the driver reads at cuInit, and the sanitizer's suppressions (which change only the reports)."""
    env = {}
    if "module_loading" in header:
        env["CUDA_MODULE_LOADING"] = header["module_loading"].upper()
    if "suppressions" in header:
        env["GILSAN_OPTIONS"] = "suppressions=" + os.path.join(os.path.dirname(os.path.abspath(path)), header["suppressions"])
    return env


def scenarios_of(folder, args):
    programs, left_out = [], []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d != "conformance")
        for file in sorted(files):
            if not file.endswith(".py"):
                continue
            path = os.path.join(root, file)
            header = header_lines(path)
            name = os.path.relpath(path, os.path.dirname(os.path.abspath(folder)))
            if header.get("expect") != "pass" or "sim" not in listed(header.get("drivers", "sim, real")):
                continue
            needs = listed(header.get("needs", ""))
            missing = [need for need in needs if need == "two-devices" or not module_available(args.python, need.split(".")[0])]
            if missing:
                left_out.append(f"{name} (needs {', '.join(missing)})")
                continue
            env = {"PYTHONPATH": args.module_path} if args.module_path else {}
            env.update(header_env(path, header))
            programs.append(Program(name, [path], env))
    return programs, left_out


def conformance_pairs_of(results_file, args):
    try:
        with open(results_file, encoding="utf-8") as file:
            results = json.load(file)["results"]
    except (OSError, ValueError, KeyError) as error:
        sys.exit(f"check_transparency: {results_file}: {error}")
    root = os.path.dirname(os.path.dirname(os.path.abspath(args.impl_path)))  # the repository: harness/impl/..
    programs = []
    for result in results:
        if result["implementation"] not in args.impl or result["expect"] != "pass" or result["outcome"] != "pass":
            continue
        path = os.path.join(root, result["scenario"])
        env = {"PYTHONPATH": os.pathsep.join(p for p in (args.impl_path, args.module_path) if p),
               "GILSAN_IMPL": result["implementation"]}
        env.update(header_env(path, header_lines(path)))
        programs.append(Program(f"{result['scenario']}[{result['implementation']}]", [path], env))
    return programs


def environment(program, args, driver_folder):
    env = dict(os.environ)
    env.update(program.env)
    env["LD_LIBRARY_PATH"] = driver_folder + os.pathsep + env.get("LD_LIBRARY_PATH", "")
    env["GILSAN_DRIVER"] = "real"  # the gilsan module loads libcuda.so.1: the sim here, as gilsan run's child does
    env["PYTHONUNBUFFERED"] = "1"
    for name in ("ASAN_OPTIONS", "UBSAN_OPTIONS"):
        if name in env:
            env[name] = env[name] + f":exitcode={TRANSPARENCY_ASAN_EXIT}"
    if "GILSAN_OPTIONS" not in program.env:
        env.pop("GILSAN_OPTIONS", None)
    env.pop("CUDA_INJECTION64_PATH", None)
    return env


def run_plainly(program, args, driver_folder):
    try:
        done = subprocess.run([args.python] + program.argv, env=environment(program, args, driver_folder),
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=args.timeout,
                              start_new_session=True)
    except subprocess.TimeoutExpired:
        return None, "", "timed out"
    return done.returncode, done.stdout, done.stderr


def run_under_gilsan(program, args, driver_folder):
    with tempfile.TemporaryDirectory(prefix="gilsan-transparency-") as folder:
        report_path = os.path.join(folder, "report.json")
        command = [args.gilsan, "run", "--driver", "real", "--sanitize", "on", "--timeout", str(args.timeout),
                   "--report", "json", "-o", report_path, "--", args.python] + program.argv
        done = subprocess.run(command, env=environment(program, args, driver_folder), stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=args.timeout + 60)
        try:
            with open(report_path, encoding="utf-8") as file:
                return json.load(file), done
        except (OSError, ValueError):
            return None, done


def masked(text):
    return DURATION.sub("? s", ADDRESS.sub("0x?", text))


def compare(program, args, driver_folder):
    """None when the program behaves the same both ways, else what differs."""
    status, stdout, stderr = run_plainly(program, args, driver_folder)
    if status != 0:
        return f"does not pass plainly (exit {status}): a transparency program must\n{stderr[-3000:]}"
    report, done = run_under_gilsan(program, args, driver_folder)
    if report is None:
        return f"gilsan run wrote no report (exit {done.returncode})\n{done.stdout[-2000:]}{done.stderr[-2000:]}"
    problems = []
    exit_under = report["exit"]
    if exit_under.get("signal") is not None or exit_under.get("status") != status:
        problems.append(f"exit status {status} plainly, {exit_under} under gilsan")
    if masked(report["stdout"]) != masked(stdout):
        problems.append("standard output differs:\n--- plainly\n" + stdout[-2000:] + "\n--- under gilsan\n" +
                        report["stdout"][-2000:])
    if report["outcome"] != "pass":
        problems.append(f"outcome {report['outcome']} under gilsan")
    if problems:
        return "\n".join(problems) + "\n--- stderr under gilsan\n" + report["stderr"][-4000:]
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gilsan", required=True)
    parser.add_argument("--driver-folder", required=True, help="a folder whose libcuda.so.1 is the driver behind the forwarding driver (the simulated one in CI)")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--module-path", default="", help="the folder of the gilsan module")
    parser.add_argument("--impl-path", default="", help="harness/impl (gilsan_impl)")
    parser.add_argument("--impl", default="cuda-core,cuda-bindings")
    parser.add_argument("--programs")
    parser.add_argument("--scenarios")
    parser.add_argument("--conformance")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=int, default=120)
    args = parser.parse_args()
    args.impl = listed(args.impl)
    if not os.path.isfile(os.path.join(args.driver_folder, "libcuda.so.1")):
        parser.error(f"--driver-folder {args.driver_folder}: no libcuda.so.1 there")
    if args.conformance and not args.impl_path:
        parser.error("--conformance needs --impl-path")

    programs, left_out = [], []
    if args.programs:
        found = sorted(f for f in os.listdir(args.programs) if f.endswith(".py"))
        if not found:
            sys.exit(f"check_transparency: --programs {args.programs}: no *.py there")
        env = {"PYTHONPATH": args.module_path} if args.module_path else {}
        programs += [Program(f"programs/{f}", [os.path.join(args.programs, f)], env) for f in found]
    if args.scenarios:
        scenarios, left_out = scenarios_of(args.scenarios, args)
        programs += scenarios
    if args.conformance:
        programs += conformance_pairs_of(args.conformance, args)
    if not programs:
        sys.exit("check_transparency: no programs selected")
    for reason in left_out:
        print(f"left out: {reason}")

    started = time.monotonic()
    differ = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(compare, program, args, args.driver_folder): program for program in programs}
        for index, future in enumerate(concurrent.futures.as_completed(futures), 1):
            program = futures[future]
            problem = future.result()
            if problem is None:
                print(f"[{index}/{len(programs)}] SAME     {program.name}", flush=True)
            else:
                differ += 1
                print(f"[{index}/{len(programs)}] DIFFERS  {program.name}\n{problem}", flush=True)
    print(f"{len(programs) - differ} passed, {differ} failed  ({time.monotonic() - started:.0f} s, "
          f"{len(left_out)} left out)")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
