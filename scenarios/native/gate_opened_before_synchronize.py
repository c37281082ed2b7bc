# gilsan: expect = pass
# gilsan: drivers = sim, real
# gilsan: timeout = 10
# gilsan: description = the gate opened before the synchronize: the host function's wait at the C library's gate ends
"""The fixed twin of `gate_wait_in_host_function.py`: the main thread opens the C library's gate before it
synchronizes the stream, so the host function's wait on the condition variable ends and the stream
drains."""
import gilsan

from _native_library import LIBRARY

stream = gilsan.Stream()
passed = []


def wait_at_the_gate():
    LIBRARY.gate_wait()
    passed.append(True)


gilsan.host_launch(stream, wait_at_the_gate)
LIBRARY.gate_open()
stream.synchronize()
assert passed == [True], passed
print("the host function passed the gate")
