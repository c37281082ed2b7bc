# gilsan: expect = pass
# gilsan: drivers = sim, real
# gilsan: timeout = 30
# gilsan: description = a Python host function runs after the work before it and blocks the work after it
"""A Python callback ordered between two device work items.

Work A (a spin, then a memset and a copy of its result into pinned memory) is followed by a Python
host function H, then by work B (another spin, memset and copy). H must see A's result, and B must not
complete while H runs: H holds the stream until the main thread, having checked that B's event is still
pending, lets it go. The host function makes no CUDA call, and the main thread never waits in the driver
with the GIL held.
"""
import threading

import gilsan

stream = gilsan.Stream()
device = gilsan.DeviceBuffer(8)
pinned = gilsan.PinnedBuffer(8)
memoryview(pinned)[:] = bytes(8)
after_b = gilsan.Event()

host_started = threading.Event()
release_host = threading.Event()
seen_by_host = []


def between_a_and_b(label):
    seen_by_host.append((label, bytes(pinned)))
    host_started.set()
    # Keeps the stream blocked until the main thread has looked at work B.
    assert release_host.wait(timeout=20), "the main thread never released the host function"


stream.work(50)                                   # work A
device.memset(1, stream=stream)
device.copy_to_host(pinned, stream=stream)
gilsan.host_launch(stream, between_a_and_b, "H")
stream.work(50)                                   # work B
device.memset(2, stream=stream)
device.copy_to_host(pinned, stream=stream)
after_b.record(stream)

assert host_started.wait(timeout=20), "the host function did not start"
b_done_while_host_ran = after_b.query()
release_host.set()
stream.synchronize()

assert seen_by_host == [("H", bytes([1]) * 8)], f"the host function saw {seen_by_host}, not work A's result"
assert not b_done_while_host_ran, "work B completed while the host function before it was still running"
assert bytes(pinned) == bytes([2]) * 8, f"work B's result is missing: {bytes(pinned)!r}"
print("host function ran between work A and work B")
