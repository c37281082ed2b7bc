# gilsan: expect = deadlock:unknown
# gilsan: timeout = 30
# gilsan: description = hangs after ignoring SIGTERM and forking a sleeping grandchild; nothing may survive
"""The watchdog's clean-up against a child that resists it.

The child ignores SIGTERM, forks a grandchild that sleeps forever, writes both pids to
$GILSAN_TEST_PIDFILE, then blocks forever on an untraced lock it already holds. The watchdog reports
the hang (no cycle: the lock's holder is not recorded and the waiter is never taken for it, so the
class is unknown) and the run must end with neither process left.
"""
import _thread
import os
import signal
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
# An untraced lock: a traced threading.Lock would put its holder, this very thread, on the board, and
# the watchdog would name the self-deadlock user-lock-inversion (docs/watchdog.md).
lock = _thread.allocate_lock()
lock.acquire()
lock.acquire()
