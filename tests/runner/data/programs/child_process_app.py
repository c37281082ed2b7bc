"""A program whose only thread waits for a child process of its own, for longer than the watchdog's
unexplained-hang deferral (ten quiet periods): the child computes, sleeps, or waits for ever on a pipe
nobody writes. Only the last is a hang (docs/watchdog.md, "Child processes").

    python3 child_process_app.py compute|sleep|stuck SECONDS
"""
import subprocess
import sys

CHILDREN = {
    "compute": "import time\nstart = time.monotonic()\nwhile time.monotonic() - start < {seconds}: pass",
    "sleep": None,  # the sleep program: one clock_nanosleep (Python 3.10's time.sleep is a select)
    "stuck": "import os\nread_end, write_end = os.pipe()\nos.read(read_end, 1)",
}

mode, seconds = sys.argv[1], float(sys.argv[2])
if CHILDREN[mode] is None:
    subprocess.run(["sleep", str(seconds)], check=True)
else:
    subprocess.run([sys.executable, "-c", CHILDREN[mode].format(seconds=seconds)], check=True)
print(f"the child finished: {mode}")
