# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 30
# gilsan: description = the twin of callback_waits_for_lock: the lock is released before the synchronize
"""The fix for callback_waits_for_lock.py: launch under the lock, synchronize after releasing it."""
import threading

import gilsan_impl

impl = gilsan_impl.current()
stream = impl.warm_stream()
lock = threading.Lock()
ran = []


def needs_the_lock():
    with lock:
        ran.append("ran")


with lock:
    impl.launch(stream, needs_the_lock)
impl.synchronize(stream)
assert ran == ["ran"], ran
