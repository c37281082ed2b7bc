"""Soak: one `gilsan suite` of many runs (a mix of scenarios that pass, raise, crash, raise in a host
function, and print 64 KiB to each stream; written under numbered names), with the runner's open
descriptors and resident
memory sampled from /proc while it works. Neither may grow with the number of runs. Descriptors: the
fewest seen in the last quarter of the runs may not exceed the most seen in the first (a run's own
pipes come and go; a leak of even one descriptor in four runs climbs past that range over a hundred
runs). Memory: the peak in the last quarter must stay within SLACK_KIB of the second quarter's peak
(the first quarter is warm-up: the allocator's per-thread arenas of the --jobs workers fill up there;
a CI run saw 11272 -> 12796 KiB from the first quarter to the last, and flat after it).

usage: check_soak.py GILSAN RUNS [--jobs N]
"""
import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time

MIX = {
    "passes.py": "# gilsan: expect = pass\nprint('ok')\n",
    "raises.py": "# gilsan: expect = exception:KeyError\nraise KeyError('soak')\n",
    "crashes.py": "# gilsan: expect = crash:SIGSEGV\nimport os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n",
    "unraisable.py": "# gilsan: expect = unraisable:ValueError\nimport gilsan\ns = gilsan.Stream()\n"
                     "gilsan.host_launch(s, int, 'x')\ns.synchronize()\n",
    "chatty.py": "# gilsan: expect = pass\nimport sys\nsys.stdout.write('o' * 65536)\nsys.stderr.write('e' * 65536)\n",
}
# Allocator noise after warm-up stays well under it (tens to a few hundred KiB); keeping every chatty
# run's output passes it within two hundred runs.
SLACK_KIB = 1024


def sample(pid):
    """(open descriptors, resident KiB) of pid, or None once it is gone."""
    try:
        fds = len(os.listdir(f"/proc/{pid}/fd"))
        with open(f"/proc/{pid}/status") as status:
            rss = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
        return fds, rss
    except (OSError, StopIteration):
        return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("gilsan")
    parser.add_argument("runs", type=int)
    parser.add_argument("--jobs", type=int, default=2)
    # Under ASan the allocator's quarantine keeps up to 256 MiB of freed memory on purpose, so resident
    # memory says nothing about the runner's own growth there: a sanitizer build checks descriptors only.
    parser.add_argument("--descriptors-only", action="store_true")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="gilsan-soak-") as folder:
        names = sorted(MIX)
        for index in range(arguments.runs):
            name = names[index % len(names)]
            with open(os.path.join(folder, f"{index:05d}_{name}"), "w") as scenario:
                scenario.write(MIX[name])
        started = time.monotonic()
        suite = subprocess.Popen([arguments.gilsan, "suite", folder, "--driver", "sim", "--jobs", str(arguments.jobs)],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        done = [0]
        samples = []  # (runs done, fds, rss)

        def count_lines():
            for line in suite.stdout:
                if line.startswith(("PASS ", "FAIL ", "ERROR ")):
                    done[0] += 1

        reader = threading.Thread(target=count_lines)
        reader.start()
        while suite.poll() is None:
            found = sample(suite.pid)
            if found:
                samples.append((done[0], *found))
            time.sleep(0.01)
        reader.join()
        stderr = suite.stderr.read()
        seconds = time.monotonic() - started
    problems = []
    if suite.returncode != 0:
        problems.append(f"gilsan suite exited {suite.returncode}: {stderr.strip()}")
    if done[0] != arguments.runs:
        problems.append(f"{done[0]} of {arguments.runs} runs reported")
    quarter = arguments.runs // 4
    first = [s for s in samples if s[0] < quarter]
    second = [s for s in samples if quarter <= s[0] < 2 * quarter]
    last = [s for s in samples if s[0] >= arguments.runs - quarter]
    if not first or not second or not last:
        problems.append(f"too few samples ({len(samples)}) to compare the first and last quarter")
    else:
        fds_first = (min(s[1] for s in first), max(s[1] for s in first))
        fds_last = (min(s[1] for s in last), max(s[1] for s in last))
        rss_first, rss_second, rss_last = (max(s[2] for s in part) for part in (first, second, last))
        print(f"{arguments.runs} runs in {seconds:.1f} s; descriptors first quarter {fds_first[0]}..{fds_first[1]}, "
              f"last quarter {fds_last[0]}..{fds_last[1]}; resident memory (peak) first quarter {rss_first} KiB, second {rss_second} KiB, "
              f"last {rss_last} KiB ({len(samples)} samples)")
        if fds_last[0] > fds_first[1]:
            problems.append(f"descriptors grew from {fds_first[0]}..{fds_first[1]} to {fds_last[0]}..{fds_last[1]}")
        if rss_last > rss_second + SLACK_KIB and not arguments.descriptors_only:
            problems.append(f"resident memory grew from {rss_second} KiB (second quarter) to {rss_last} KiB")
    for problem in problems:
        print(f"CHECK FAILED: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
