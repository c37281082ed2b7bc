# gilsan: expect = pass
# gilsan: drivers = sim, real
# gilsan: timeout = 20
# gilsan: description = the fix of user_lock_order.py: the main thread lets go of the lock before it synchronizes
"""The twin of user_lock_order.py with the fix: no lock is held across the wait.

The host function takes `lock` as before, and the main thread still uses `lock`, but it releases it
before synchronizing the stream. A host function pending on the stream can then always get the lock,
so there is no cycle and the sanitizer reports nothing: tracing Python locks does not turn every
shared lock into a finding, only a lock held while waiting for work that needs it.
"""
import threading

import gilsan

stream = gilsan.Stream()
lock = threading.Lock()
results = []


def takes_the_lock():
    with lock:
        results.append("from the host function")


gilsan.host_launch(stream, takes_the_lock)
with lock:
    results.append("from the main thread")
stream.synchronize()
with lock:
    assert len(results) == 2, results
print("synchronized without holding the lock")
