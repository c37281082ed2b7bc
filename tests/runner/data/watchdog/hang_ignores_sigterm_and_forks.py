# gilsan: expect = deadlock:unknown
# gilsan: timeout = 30
# gilsan: description = hangs after ignoring SIGTERM and forking a sleeping grandchild; nothing may survive
"""The watchdog's clean-up against a child that resists it.

The child ignores SIGTERM, forks a grandchild that sleeps forever, writes both pids to
$GILSAN_TEST_PIDFILE, then blocks forever on a lock it already holds. The watchdog reports the hang
(no cycle: the lock's holder is the waiter itself, so the class is unknown) and the run must end with
neither process left.
"""
import os
import signal
import threading
import time

signal.signal(signal.SIGTERM, signal.SIG_IGN)
grandchild = os.fork()
if grandchild == 0:
    while True:
        time.sleep(1)

pid_file = os.environ["GILSAN_TEST_PIDFILE"]
with open(pid_file + ".partial", "w") as pids:
    pids.write(f"{os.getpid()} {grandchild}\n")
os.replace(pid_file + ".partial", pid_file)
lock = threading.Lock()
lock.acquire()
lock.acquire()
