# gilsan: expect = deadlock:callback-self-wait
# gilsan: drivers = sim, real
# gilsan: timeout = 15
# gilsan: description = a host function waits at a C library's gate (a condition variable) that the main thread opens only after synchronizing
"""A host function calls into a C library that waits on a pthread condition variable until the library's
gate is opened; the main thread opens the gate, but only after synchronizing the stream the host function
runs on. No lock is held across the wait: the host function waits, through the main thread, for its own
stream. The report says the host function waits for a notification of the library's condition variable
(named by its symbol) and which thread may give it (docs/native-locks.md, "Notifications"). The fix
opens the gate before synchronizing: `gate_opened_before_synchronize.py`.
"""
import gilsan

from _native_library import LIBRARY

stream = gilsan.Stream()


def wait_at_the_gate():
    LIBRARY.gate_wait()  # waits for gate_open below, which comes after the synchronize


gilsan.host_launch(stream, wait_at_the_gate)
stream.synchronize()
LIBRARY.gate_open()
print("not reached")
