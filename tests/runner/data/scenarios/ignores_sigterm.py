# gilsan: expect = timeout
# gilsan: timeout = 1
# gilsan: description = ignores SIGTERM and forks a sleeping grandchild; nothing may survive the run
import os
import signal
import tempfile
import time

signal.signal(signal.SIGTERM, signal.SIG_IGN)
grandchild = os.fork()
if grandchild == 0:
    while True:
        time.sleep(1)

print("child", os.getpid(), "grandchild", grandchild, flush=True)
# The test that runs this scenario checks afterwards that neither process exists.
pid_file = os.environ.get("GILSAN_TEST_PIDFILE") or os.path.join(tempfile.gettempdir(), "gilsan-ignores-sigterm.pids")
with open(pid_file + ".partial", "w") as pids:
    pids.write(f"{os.getpid()} {grandchild}\n")
os.replace(pid_file + ".partial", pid_file)  # whoever waits for the file sees it whole
while True:
    time.sleep(1)
