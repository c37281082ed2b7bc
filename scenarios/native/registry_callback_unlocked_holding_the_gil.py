# gilsan: expect = pass
# gilsan: drivers = sim, real
# gilsan: timeout = 10
# gilsan: description = the fixed twin: the C library lets go of its mutex before calling back, so the main thread's call that holds the GIL gets it
"""The fixed twin of `registry_wait_holding_the_gil.py`: the host function's call into the C library
lets go of the registry mutex before it calls back into Python. The main thread's call, made with the
GIL held, takes the mutex at once; the callback gets the GIL once the main thread synchronizes."""
import time

import gilsan

from _native_library import CALLBACK, HOLDING_THE_GIL, LIBRARY

stream = gilsan.Stream()
called_back = []
callback = CALLBACK(lambda: called_back.append(True))


def register():
    LIBRARY.registry_call_unlocked_announced(callback)


gilsan.host_launch(stream, register)
while not LIBRARY.registry_was_announced():
    time.sleep(0.001)
entries = HOLDING_THE_GIL.registry_count_announced()
stream.synchronize()
assert called_back == [True] and entries == 1, (called_back, entries)
print("the callback ran once the main thread let the GIL go")
