"""Helpers shared by the gilsan module's tests (run by ctest with python3, GILSAN_DRIVER=sim)."""
import subprocess
import sys
import threading
import time

import gilsan

# Generous: only there to turn a hang into a failure, never to measure anything.
HANG_TIMEOUT = 30.0

CUDA_ERROR_INVALID_VALUE = 1
CUDA_ERROR_NOT_READY = 600
CUDA_ERROR_INVALID_HANDLE = 400
CUDA_ERROR_ILLEGAL_ADDRESS = 700


class Blocker:
    """A Python host function that keeps its stream waiting until open() is called."""

    def __init__(self, stream):
        self.opened = threading.Event()
        gilsan.host_launch(stream, self.opened.wait, HANG_TIMEOUT)

    def open(self):
        self.opened.set()


def wait_until(predicate, what):
    """Polls `predicate` (releasing what driver threads handed over) until it holds, or fails."""
    deadline = time.monotonic() + HANG_TIMEOUT
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}; stats: {gilsan._stats()}")
        gilsan._release_deferred()
        time.sleep(0.005)


def wait_for_earlier_releases():
    """Waits until every payload of earlier tests is released. A graph's callables are released by its
    user object's destructor on the driver's thread after the graph is gone, so a test's stats window can
    otherwise catch the release of the test before it."""
    wait_until(lambda: gilsan._stats()["payloads_live"] == 0, "the releases of earlier tests")


def stats_delta(before):
    after = gilsan._stats()
    return {key: after[key] - before[key] for key in after if key != "native_last_word"}


def run_python(source, timeout=HANG_TIMEOUT, env=None):
    """Runs `source` in a fresh python3 (same environment), returning the CompletedProcess."""
    return subprocess.run([sys.executable, "-c", source], capture_output=True, text=True, timeout=timeout, env=env)
