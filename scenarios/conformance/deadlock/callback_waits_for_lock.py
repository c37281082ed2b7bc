# gilsan: expect = deadlock:user-lock-inversion
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 3
# gilsan: description = the main thread holds a threading.Lock and synchronizes; the host function needs that lock
"""A host function waiting for a lock held by a thread that waits in the driver: the main thread takes
`lock`, launches a host function that takes it too, and synchronizes (with the GIL released, as it
should) while still holding the lock. Main -> stream -> callback thread -> lock -> main.

Why it matters: the GIL is not the only lock. Releasing the GIL fixes nothing when the program's own lock
(a queue's, a cache's) makes the same cycle. The twin, release_lock_before_synchronize.py, is the fix.
"""
import threading

import gilsan_impl

impl = gilsan_impl.current()
stream = impl.warm_stream()
lock = threading.Lock()


def needs_the_lock():
    with lock:
        print("not reached: the main thread holds the lock")


with lock:
    impl.launch(stream, needs_the_lock)
    impl.synchronize(stream)
print("not reached")
