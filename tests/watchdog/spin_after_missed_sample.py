# gilsan: expect = deadlock:gil-driver-inversion
# gilsan: drivers = sim
# gilsan: timeout = 10
# gilsan: description = a thread that once missed a sampling signal is still found spinning later
"""spin_in_driver_call.py, after the busy thread once failed to answer a stack sample.

First the main thread computes for 0.8 s with every signal blocked, as a library's start-up may (on
the H200, CuPy's import did): the board is quiet, so the watchdog's stack check signals it and gets
no answer. Then it unblocks signals and makes the deadlock of spin_in_driver_call.py. The watchdog
must ask the thread again later, find it spinning in cuStreamSynchronize and report the cycle.
"""
import ctypes
import os
import signal
import sys
import time

import gilsan

library = os.environ.get("GILSAN_TEST_SPINNING_DRIVER")
if not library:
    sys.exit("spin_after_missed_sample.py: set GILSAN_TEST_SPINNING_DRIVER to the built libgilsan_test_spinning_driver.so")
spinning_driver = ctypes.PyDLL(library)  # PyDLL: the call keeps the GIL
spinning_driver.cuStreamSynchronize.argtypes = [ctypes.c_void_p]

blocked = signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
end = time.monotonic() + 0.8
while time.monotonic() < end:
    pass
signal.pthread_sigmask(signal.SIG_SETMASK, blocked)

stream = gilsan.Stream()
stream.work(50)
gilsan.host_launch(stream, print, "unreachable: the main thread holds the GIL")
spinning_driver.cuStreamSynchronize(ctypes.c_void_p(stream.handle))
print("not reached")
