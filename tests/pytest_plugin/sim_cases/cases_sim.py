"""Tests that check_plugin.py runs under `pytest -p gilsan.pytest` with the reference gilsan module:
each ends a known way, and check_plugin.py says what the plugin must make of it. The file is named
cases_*.py so that a plain `pytest tests/` does not collect a test that hangs."""
import os
import time

import gilsan


def record_process():
    """Appends this process's id to $GILSAN_CASES_PIDS: check_plugin.py tells from it which tests shared a child."""
    if os.environ.get("GILSAN_CASES_PIDS"):
        with open(os.environ["GILSAN_CASES_PIDS"], "a", encoding="utf-8") as stream:
            stream.write(f"{os.getpid()}\n")


def launch_and_wait(value):
    """One host function, the main thread waiting for it without the GIL; records this process."""
    stream = gilsan.Stream()
    ran = []
    gilsan.host_launch(stream, ran.append, value)
    stream.synchronize()
    assert ran == [value]
    record_process()


def test_clean():
    """Passes: the host function runs while the main thread waits without the GIL."""
    launch_and_wait("ran")


def test_clean_again():
    """Passes, as test_clean; in the plugin's session mode in the same child as test_clean."""
    launch_and_wait("again")


def test_gil_held_synchronize_deadlock():
    """Hangs: the host function waits for the GIL, held by the main thread that waits for the stream.

    The device work keeps the host function pending until the main thread is inside the synchronize.
    """
    stream = gilsan.Stream()
    stream.work(200)
    gilsan.host_launch(stream, print, "unreachable: the main thread holds the GIL")
    stream.synchronize(hold_gil=True)


def test_callback_makes_cuda_call():
    """Passes by itself; the sanitizer reports the device allocation made inside the host function."""
    answers = []

    def allocate():
        try:
            gilsan.DeviceBuffer(64)
            answers.append("allocated")
        except gilsan.CudaError as error:
            answers.append(str(error))

    stream = gilsan.Stream()
    gilsan.host_launch(stream, allocate)
    stream.synchronize()
    assert len(answers) == 1


def test_fails_by_itself():
    """Fails on its own assertion, which the plugin must pass on unchanged."""
    assert 1 + 1 == 3, "the test's own failure"


def test_exits_the_process():
    """Ends the process in the middle of the test (only with $GILSAN_CASES_EXIT): the child ends with it."""
    if os.environ.get("GILSAN_CASES_EXIT"):
        os._exit(0)


def test_slow():
    """Runs past a short --gilsan-timeout without a hang the watchdog could name (only with $GILSAN_CASES_SLOW)."""
    if not os.environ.get("GILSAN_CASES_SLOW"):
        return
    time.sleep(60)


def test_zz_leaves_a_host_function_behind():
    """Passes, but leaves a host function behind long device work: it never runs, and the sanitizer
    reports it lost when the process ends (named zz so that it runs last)."""
    stream = gilsan.Stream()
    stream.work(1500)
    gilsan.host_launch(stream, print, "never: the process ends first")
