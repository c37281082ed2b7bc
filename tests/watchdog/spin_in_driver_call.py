# gilsan: expect = deadlock:gil-driver-inversion
# gilsan: drivers = sim
# gilsan: timeout = 10
# gilsan: description = a GIL-holding ctypes call spins in a fake cuStreamSynchronize while a host function waits for the GIL
"""The CuPy inversion (scenarios/interop/cupy_gil_inversion.py) without a GPU.

The main thread calls a function named cuStreamSynchronize through ctypes.PyDLL, which keeps the
GIL and writes nothing on gilsan's board; like the real driver's default wait, it spins on a CPU
(tests/watchdog/spinning_driver.cpp, path in GILSAN_TEST_SPINNING_DRIVER). Meanwhile the simulated
driver's callback thread reaches a Python host function and waits for the GIL. The watchdog must not
take the spin for computation: it reads the busy thread's native stack, finds the driver entry point
and reports the cycle main -> callback thread -> GIL -> main, with the spin marked inferred.
"""
import ctypes
import os
import sys

import gilsan

library = os.environ.get("GILSAN_TEST_SPINNING_DRIVER")
if not library:
    sys.exit("spin_in_driver_call.py: set GILSAN_TEST_SPINNING_DRIVER to the built libgilsan_test_spinning_driver.so")

stream = gilsan.Stream()
stream.work(50)
gilsan.host_launch(stream, print, "unreachable: the main thread holds the GIL")

spinning_driver = ctypes.PyDLL(library)  # PyDLL: the call keeps the GIL
spinning_driver.cuStreamSynchronize.argtypes = [ctypes.c_void_p]
spinning_driver.cuStreamSynchronize(ctypes.c_void_p(stream.handle))
print("not reached")
