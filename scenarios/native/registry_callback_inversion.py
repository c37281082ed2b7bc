# gilsan: expect = deadlock:user-lock-inversion
# gilsan: drivers = sim, real
# gilsan: timeout = 5
# gilsan: description = a C library's mutex, held around a callback that synchronizes; a host function needs that mutex
"""A C library calls back into Python while holding its own pthread mutex; the callback enqueues a host
function and synchronizes its stream; the host function calls into the same library, which needs the
mutex. The main thread waits for the stream, the stream for the host function, the host function for
the mutex, and the mutex is held by the main thread: the shape of a caching allocator or a registry whose
lock is held across a callback (docs/native-locks.md). The fix calls back after letting go of the
mutex: `registry_callback_after_unlock.py`.
"""
import gilsan

from _native_library import CALLBACK, LIBRARY

stream = gilsan.Stream()


def count_entries():
    LIBRARY.registry_count()  # waits for the registry's mutex, held by the main thread
    print("not reached: the main thread holds the registry's mutex")


def under_the_registry_lock():
    gilsan.host_launch(stream, count_entries)
    stream.synchronize()


callback = CALLBACK(under_the_registry_lock)
LIBRARY.registry_call_locked(callback)
print("not reached")
