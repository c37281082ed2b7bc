# gilsan: expect = deadlock:user-lock-inversion
# gilsan: drivers = sim, real
# gilsan: timeout = 5
# gilsan: description = the GIL and a C library's mutex taken in opposite orders: a host function holds the mutex and calls back into Python; the main thread holds the GIL and asks for the mutex
"""The GIL-ordered shape of rapidsai/rmm #2026 (the GIL and a library's lock taken in opposite orders by
two threads). A host function calls into a C library that takes its registry mutex and, still holding
it, calls back into Python, which needs the GIL. The main thread, meanwhile, calls the same library
through ctypes.PyDLL, which keeps the GIL, and asks for the registry mutex. The main thread holds the
GIL and waits for the mutex; the mutex's holder, the callback thread, waits for the GIL. The fix lets
go of the mutex before calling back: `registry_callback_unlocked_holding_the_gil.py`.
"""
import time

import gilsan

from _native_library import CALLBACK, HOLDING_THE_GIL, LIBRARY

stream = gilsan.Stream()


def back_in_python():
    print("not reached: the main thread holds the GIL")


callback = CALLBACK(back_in_python)


def register():
    LIBRARY.registry_call_locked_announced(callback)  # holds the mutex, then needs the GIL


gilsan.host_launch(stream, register)
while not LIBRARY.registry_was_announced():
    time.sleep(0.001)
HOLDING_THE_GIL.registry_count_announced()  # holds the GIL, waits for the mutex
stream.synchronize()
print("not reached")
