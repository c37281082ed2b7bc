# gilsan: expect = pass
# gilsan: timeout = 30
# gilsan: description = a 2 s wait the watchdog cannot explain, which ends by itself, is not a hang
"""Slow work the watchdog cannot see is not a deadlock.

The main thread waits 2 s in select() on a pipe nobody writes to: a kernel wait with nothing on the
board and no frame that names what it waits for, like a driver initializing under load or device work
on a GPU that other processes share. The quiet period (500 ms) passes, but a hang the snapshot cannot
explain (class unknown) is reported only after ten quiet periods, so this run ends normally. With
--quiet-ms 100 (one second for an unexplained hang) the same wait is reported as deadlock:unknown.
"""
import os
import select

readable, _writable = os.pipe()
ready, _, _ = select.select([readable], [], [], 2.0)
assert not ready
print("waited 2 s for nothing")
