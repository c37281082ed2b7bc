# gilsan: expect = pass
# gilsan: drivers = sim, real
# gilsan: timeout = 20
# gilsan: description = the fixed twin: the C library calls back after releasing its mutex
"""`registry_callback_inversion.py` fixed: the library updates its registry under its mutex and calls
back after releasing it, so the host function that reads the registry gets the mutex at once.
"""
import gilsan

from _native_library import CALLBACK, LIBRARY

stream = gilsan.Stream()
counts = []


def count_entries():
    counts.append(LIBRARY.registry_count())


def after_the_registry_lock():
    gilsan.host_launch(stream, count_entries)
    stream.synchronize()


callback = CALLBACK(after_the_registry_lock)
LIBRARY.registry_call_unlocked(callback)
assert counts == [1], counts
print("the host function read the registry:", counts)
