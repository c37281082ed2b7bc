# gilsan: expect = deadlock:user-lock-inversion
# gilsan: drivers = sim, real
# gilsan: timeout = 3
# gilsan: description = the main thread holds a lock and synchronizes; the host function needs that lock
"""A host function waits for a Python lock held by a thread that waits in the driver for it.

The main thread takes `lock`, enqueues a host function that takes the same lock, and synchronizes the
stream (with the GIL released, as it should) while still holding the lock. The host function blocks on
the lock; the main thread waits for the stream, which waits for the host function.
"""
import threading

import gilsan

stream = gilsan.Stream()
lock = threading.Lock()


def needs_the_lock():
    with lock:
        print("not reached: the main thread holds the lock")


with lock:
    gilsan.host_launch(stream, needs_the_lock)
    stream.synchronize()
print("not reached")
