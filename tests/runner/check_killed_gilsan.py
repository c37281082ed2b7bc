"""Nothing survives a gilsan killed with SIGKILL (what a CI job's timeout sends), and the next gilsan
removes what dead runs left in the temporary folders.

usage: check_killed_gilsan.py GILSAN SCENARIO EMPTY_FOLDER
  1. `gilsan suite SCENARIO` with TMPDIR set to a fresh folder; once the scenario has started its
     processes (one in its group, one that left it with setsid), gilsan gets SIGKILL. Within 10 s the
     scenario, both grandchildren and gilsan's guardian must be gone, and no gilsan-*-PID-* folder of
     that gilsan left in TMPDIR.
  2. Folders named as a dead gilsan's (gilsan-driver-PID-XXXXXX, PID no process) are removed by the next
     `gilsan suite`; one of a live process and one without a pid (an older gilsan's) are kept.
Exit status: 0 as above, 1 not.
"""
import os
import signal
import subprocess
import sys
import tempfile
import time


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def running(pid):
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False


def processes_with_argument(argument):
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                if argument.encode() in cmdline.read().split(b"\0") and running(int(entry)):
                    found.append(int(entry))
        except OSError:
            continue
    return found


def run_folders(folder, owner):
    return sorted(name for name in os.listdir(folder) if name.startswith("gilsan-") and f"-{owner}-" in name)


def killed_mid_run(gilsan, scenario, scratch):
    tmpdir = os.path.join(scratch, "tmp")
    os.mkdir(tmpdir)
    pid_file = os.path.join(scratch, "pids")
    env = dict(os.environ, TMPDIR=tmpdir, GILSAN_TEST_PIDFILE=pid_file)
    suite = subprocess.Popen([gilsan, "suite", scenario, "--driver", "sim"], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while not os.path.exists(pid_file):
        if suite.poll() is not None:
            fail(f"gilsan suite ended (exit {suite.returncode}) before the scenario wrote its pids")
        if time.monotonic() > deadline:
            suite.kill()
            fail("the scenario did not start in 60 s")
        time.sleep(0.05)
    with open(pid_file, encoding="utf-8") as pids:
        scenario_pids = [int(pid) for pid in pids.read().split()]
    folders = run_folders(tmpdir, suite.pid)
    if not folders:
        fail(f"no gilsan-*-{suite.pid}-* folder in TMPDIR while the run goes: {os.listdir(tmpdir)}")
    os.kill(suite.pid, signal.SIGKILL)
    suite.wait()
    deadline = time.monotonic() + 10
    while True:
        alive = [pid for pid in scenario_pids if running(pid)]
        guardians = processes_with_argument(scenario)
        left = run_folders(tmpdir, suite.pid)
        if not alive and not guardians and not left:
            break
        if time.monotonic() > deadline:
            for pid in alive + guardians:
                os.kill(pid, signal.SIGKILL)
            fail(f"10 s after gilsan's SIGKILL: processes {alive} of the run, gilsan processes {guardians}, "
                 f"folders {left}")
        time.sleep(0.05)
    print(f"killed mid-run: scenario processes {scenario_pids} gone, folders {folders} removed")


def leftovers_swept(gilsan, empty, scratch):
    tmpdir = os.path.join(scratch, "tmp-leftovers")
    os.mkdir(tmpdir)
    dead = "gilsan-driver-2147483600-a1b2c3"  # above any pid_max: no process has it
    live = f"gilsan-sanitizer-{os.getpid()}-d4e5f6"
    older = "gilsan-board-g7h8i9"
    for name in (dead, live, older):
        os.mkdir(os.path.join(tmpdir, name))
        with open(os.path.join(tmpdir, name, "file"), "w", encoding="utf-8") as file:
            file.write("left behind\n")
    done = subprocess.run([gilsan, "suite", empty, "--driver", "sim", "--allow-empty"],
                          env=dict(os.environ, TMPDIR=tmpdir), capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        fail(f"gilsan suite --allow-empty: exit {done.returncode}\n{done.stdout}{done.stderr}")
    names = sorted(os.listdir(tmpdir))
    if dead in names:
        fail(f"{dead} (a dead gilsan's) was not removed")
    if live not in names or older not in names:
        fail(f"{live} (a live process's) or {older} (no pid) was removed: {names}")
    print(f"leftovers: {dead} removed, {live} and {older} kept")


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    gilsan, scenario, empty = sys.argv[1:]
    with tempfile.TemporaryDirectory(prefix="gilsan-test-killed-") as scratch:
        killed_mid_run(gilsan, scenario, scratch)
        leftovers_swept(gilsan, empty, scratch)
    return 0


if __name__ == "__main__":
    sys.exit(main())
