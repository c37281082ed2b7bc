# gilsan: expect = report:lock-order-cycle
# gilsan: drivers = sim, real
# gilsan: timeout = 20
# gilsan: description = a host function took a threading.Lock and finished; later the main thread synchronizes holding that lock
"""The user-lock inversion, predicted on a run that does not hang.

A Python host function takes `lock` and returns; the main thread waits for it with the GIL released,
so nothing is pending. Only then does the main thread take `lock` and synchronize the stream while
holding it. This run completes -- but the order is the deadlock of scenarios/deadlock/user_lock_inversion.py:
had the host function still been queued, it would wait for the lock held by a thread that waits for
the stream. gilsan traces threading.Lock in scenario children, so the sanitizer reports the cycle
"lock -> completion of the stream -> lock" (user-lock-inversion) on this first run. The GIL is not in
the cycle: a thread waiting for a Python lock lets the GIL go.
"""
import threading

import gilsan

stream = gilsan.Stream()
lock = threading.Lock()
ran = []


def takes_the_lock():
    with lock:
        ran.append(True)


gilsan.host_launch(stream, takes_the_lock)
stream.synchronize()  # GIL released: the host function has run when this returns
assert ran, "the host function did not run"
with lock:
    stream.synchronize()  # nothing is pending now; with a host function queued, this would hang
print("no hang on this run")
