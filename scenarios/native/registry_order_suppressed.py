# gilsan: expect = pass
# gilsan: drivers = sim, real
# gilsan: timeout = 20
# gilsan: suppressions = registry_order_suppressed.supp
# gilsan: description = registry_order_predicted.py's finding, suppressed by the library that takes the mutex
"""A suppression names a native lock by its library.

The order of `registry_order_predicted.py`, whose cycle runs through the C library's mutex. The
sanitizer names a native lock "native mutex ADDRESS (taken in LIBRARY)", so
registry_order_suppressed.supp suppresses the cycle with a pattern on the library's file name, and the
run passes with the finding counted as suppressed.
"""
import gilsan

from _native_library import CALLBACK, LIBRARY

stream = gilsan.Stream()


def count_entries():
    LIBRARY.registry_count()  # takes the registry's mutex on the callback thread


gilsan.host_launch(stream, count_entries)
stream.synchronize()

callback = CALLBACK(stream.synchronize)  # the library calls back holding the mutex; nothing is pending
LIBRARY.registry_call_locked(callback)
print("no hang on this run; the finding is suppressed")
