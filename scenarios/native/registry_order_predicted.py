# gilsan: expect = report:lock-order-cycle
# gilsan: drivers = sim, real
# gilsan: timeout = 20
# gilsan: description = a host function took a C library's mutex and finished; later the library calls back holding it and the callback synchronizes
"""The inversion of `registry_callback_inversion.py`, predicted on a run that does not hang.

A host function calls into the C library, which takes its registry's mutex for a moment; the main
thread synchronizes, so the host function has run. Only then does the library call back into Python
while holding that mutex, and the callback synchronizes the same stream: nothing is pending now, so
this run completes. Had the host function still been queued it would wait for the mutex held by a
thread that waits for the stream. With the native-lock interposer preloaded (gilsan run's default) the
sanitizer holds the mutex as a lock of its model and reports "mutex -> completion of the stream ->
mutex" on this first run.
"""
import gilsan

from _native_library import CALLBACK, LIBRARY

stream = gilsan.Stream()
counts = []


def count_entries():
    counts.append(LIBRARY.registry_count())


gilsan.host_launch(stream, count_entries)
stream.synchronize()  # the host function has taken and let go of the mutex
assert counts, "the host function did not run"


def under_the_registry_lock():
    stream.synchronize()  # nothing is pending now; with a host function queued, this would hang


callback = CALLBACK(under_the_registry_lock)
LIBRARY.registry_call_locked(callback)
print("no hang on this run")
