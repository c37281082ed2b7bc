"""A plain Python process that hangs on the GIL, for the watchdog's integration test.

python3 python_child.py LIBGILSAN_BOARD_TEST_HOOKS.so [ONSET_FILE]

The parent passes the write end of a pipe in GILSAN_TEST_PYTHON_FD; faulthandler dumps every thread's
Python stack into it on a real-time signal, the way the runner's child does. The main thread then
blocks forever inside a ctypes.PyDLL call, which keeps the GIL, while a second thread needs the GIL
back after each short sleep: it waits in PyEval_RestoreThread / take_gil, which the watchdog must
infer from native frames because nothing here writes the GIL state to the board.
"""

import ctypes
import faulthandler
import os
import signal
import sys
import threading
import time

hooks = ctypes.PyDLL(sys.argv[1])
python_stack_signal = signal.SIGRTMIN + 7
faulthandler.register(python_stack_signal, file=int(os.environ["GILSAN_TEST_PYTHON_FD"]), all_threads=True)
if hooks.gilsan_test_install(int(python_stack_signal)) < 0:
    sys.exit("no board: GILSAN_BOARD is not set")


def spin():
    while True:
        time.sleep(0.001)


threading.Thread(target=spin, name="spinner", daemon=True).start()
time.sleep(0.05)
if len(sys.argv) > 2:  # when the hang starts, on the watchdog's clock (CLOCK_MONOTONIC)
    with open(sys.argv[2], "w") as onset:
        onset.write(f"{time.monotonic_ns()}\n")
hooks.gilsan_test_block_forever()
