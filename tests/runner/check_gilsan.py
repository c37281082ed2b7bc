"""Runs one gilsan command and checks what it did: exit code, output, reports, surviving processes.

usage: check_gilsan.py [checks...] -- GILSAN [ARGS...]

  --exit N               the exit code gilsan must return
  --stdout REGEX         must match somewhere in stdout (multi-line mode; repeatable)
  --stderr REGEX         must match somewhere in stderr (repeatable)
  --stderr-lines N       stderr must have exactly N lines
  --no-survivors FILE    every pid listed in FILE (written by the scenario) must be gone afterwards
  --json FILE KEY VALUE  the JSON report FILE must have KEY equal to VALUE (repeatable)
  --junit FILE T F S     FILE must be JUnit XML with T tests, F failures and S skipped
  --env NAME=VALUE       set for gilsan (repeatable)
  --make-venv DIR        create a virtualenv at DIR with the modules needs_venv_module.py imports
  --interrupt-when FILE  send SIGINT to gilsan once FILE exists (the scenario writes it when running)
  --dot-file FILE        FILE must be a Graphviz digraph with a bold red cycle (removed before the run)
"""
import errno
import json
import os
import re
import signal
import subprocess
import sys
import time
import venv
import xml.etree.ElementTree as ElementTree


def fail(message):
    print("CHECK FAILED:", message)
    sys.exit(1)


def make_venv(folder):
    venv.EnvBuilder(clear=True, with_pip=False).create(folder)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    site_packages = os.path.join(folder, "lib", version, "site-packages")
    with open(os.path.join(site_packages, "gilsan_venv_module.py"), "w") as module:
        module.write("NAME = 'venv module'\n")
    extra = os.path.join(folder, "extra")
    os.makedirs(extra, exist_ok=True)
    with open(os.path.join(extra, "gilsan_pth_module.py"), "w") as module:
        module.write("NAME = 'pth module'\n")
    with open(os.path.join(site_packages, "gilsan_extra.pth"), "w") as pth:
        pth.write(extra + "\n")


def process_exists(pid):
    try:
        os.kill(pid, 0)
    except OSError as error:
        return error.errno != errno.ESRCH
    return True


def main(argv):
    if "--" not in argv:
        fail("no '--' before the gilsan command")
    split = argv.index("--")
    options, command = argv[:split], argv[split + 1:]
    expected_exit, stdout_patterns, stderr_patterns = None, [], []
    stderr_lines, pid_files, json_checks, junit_files, dot_files = None, [], [], [], []
    environment = dict(os.environ)
    interrupt_when = None
    i = 0
    while i < len(options):
        option = options[i]
        if option in ("--json", "--junit"):
            values = tuple(options[i + 1:i + 4 if option == "--json" else i + 5])
            (json_checks if option == "--json" else junit_files).append(values)
            i += 1 + len(values)
            continue
        value = options[i + 1]
        i += 2
        if option == "--exit":
            expected_exit = int(value)
        elif option == "--stdout":
            stdout_patterns.append(value)
        elif option == "--stderr":
            stderr_patterns.append(value)
        elif option == "--stderr-lines":
            stderr_lines = int(value)
        elif option == "--no-survivors":
            pid_files.append(value)
            if os.path.exists(value):
                os.remove(value)
        elif option == "--env":
            name, _, text = value.partition("=")
            environment[name] = text
        elif option == "--make-venv":
            make_venv(value)
        elif option == "--dot-file":
            dot_files.append(value)
            if os.path.exists(value):
                os.remove(value)
        elif option == "--interrupt-when":
            interrupt_when = value
            if os.path.exists(value):
                os.remove(value)
        else:
            fail(f"unknown option {option}")

    # Generous limits: they only catch a gilsan that hangs.
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment)
    if interrupt_when:
        give_up = time.monotonic() + 120
        while not os.path.exists(interrupt_when) and process.poll() is None and time.monotonic() < give_up:
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=300)
    done = subprocess.CompletedProcess(command, process.returncode, stdout, stderr)
    print("$", " ".join(command), f"\n[exit {done.returncode}]\n--- stdout ---\n{done.stdout}--- stderr ---\n{done.stderr}")

    if expected_exit is not None and done.returncode != expected_exit:
        fail(f"exit code {done.returncode}, expected {expected_exit}")
    for pattern in stdout_patterns:
        if not re.search(pattern, done.stdout, re.MULTILINE):
            fail(f"stdout does not match {pattern!r}")
    for pattern in stderr_patterns:
        if not re.search(pattern, done.stderr, re.MULTILINE):
            fail(f"stderr does not match {pattern!r}")
    if stderr_lines is not None and len(done.stderr.splitlines()) != stderr_lines:
        fail(f"stderr has {len(done.stderr.splitlines())} lines, expected {stderr_lines}")
    for pid_file in pid_files:
        with open(pid_file) as pids:
            listed = [int(pid) for pid in pids.read().split()]
        if len(listed) < 2:
            fail(f"{pid_file} lists {listed}, expected the child and its grandchild")
        survivors = [pid for pid in listed if process_exists(pid)]
        if survivors:
            fail(f"processes still exist after the run: {survivors}")
    for file in dot_files:
        if not os.path.exists(file):
            fail(f"{file} was not written")
        with open(file) as dot:
            text = dot.read()
        if not text.startswith("digraph") or "red" not in text:
            fail(f"{file} is not a digraph with a red cycle:\n{text[:400]}")
    for file, key, value in json_checks:
        with open(file) as report:
            document = json.load(report)
        if str(document.get(key)) != value:
            fail(f"{file}: {key} is {document.get(key)!r}, expected {value!r}")
    for file, tests, failures, skipped in junit_files:
        suite = ElementTree.parse(file).getroot().find("testsuite")
        counts = [suite.get(name) for name in ("tests", "failures", "skipped")]
        if counts != [tests, failures, skipped]:
            fail(f"{file}: tests, failures, skipped are {counts}, expected {[tests, failures, skipped]}")
        if len(suite.findall("testcase")) != int(tests):
            fail(f"{file}: {len(suite.findall('testcase'))} testcases, but tests={tests}")
    print("CHECK PASSED")


if __name__ == "__main__":
    main(sys.argv[1:])
