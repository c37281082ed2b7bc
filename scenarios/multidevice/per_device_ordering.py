# gilsan: expect = pass
# gilsan: drivers = sim, real
# gilsan: needs = two-devices
# gilsan: timeout = 30
# gilsan: description = host_launch on streams of two devices keeps each device's order and references
"""Host functions on two devices, each in its own device's stream order.

One stream per device. Three times on each: device work, a memset of a device word to a new value, a
copy of it into that device's pinned word, then a Python host function that reads the pinned word. Each
callback must see the value written just before it (it ran after the work before it, and before the
work after it), in enqueue order, per device. The callbacks make no CUDA call. The module must keep
each callable alive until its own run and release it after, whichever device runs it: the callables
are objects only the module references, watched through weak references.
"""
import threading
import time
import weakref

import gilsan

assert gilsan.device_count() >= 2, "the runner gives this scenario two devices"
seen = {0: [], 1: []}
lock = threading.Lock()


class Callback:
    """A callable only the module holds, so its release is observable."""

    def __init__(self, device, pinned):
        self.device, self.pinned = device, pinned

    def __call__(self):
        with lock:
            seen[self.device].append(bytes(self.pinned)[0])


contexts = [gilsan.Context(device) for device in (0, 1)]
streams, buffers, pinned_words, watchers = [], [], [], []
for device, context in enumerate(contexts):
    with context:
        stream, device_word, pinned = gilsan.Stream(), gilsan.DeviceBuffer(8), gilsan.PinnedBuffer(8)
        memoryview(pinned)[:] = bytes(8)
        for value in (1, 2, 3):
            stream.work(20 + 10 * device)
            device_word.memset(10 * device + value, stream=stream)
            device_word.copy_to_host(pinned, stream=stream)
            callback = Callback(device, pinned)
            watchers.append(weakref.ref(callback))
            gilsan.host_launch(stream, callback)
            del callback
        streams.append(stream)
        buffers.append(device_word)
        pinned_words.append(pinned)

for device, context in enumerate(contexts):
    with context:
        streams[device].synchronize()
        assert streams[device].context == context.handle, "a stream moved to another context"

for device in (0, 1):
    expected = [10 * device + value for value in (1, 2, 3)]
    assert seen[device] == expected, f"device {device}'s callbacks saw {seen[device]}, not {expected}"

# A callable is dropped by its own run, or handed to the interpreter when its callback thread could not
# take the GIL at that moment; _release_deferred takes in what was handed over.
deadline = time.monotonic() + 20
while any(ref() is not None for ref in watchers) and time.monotonic() < deadline:
    gilsan._release_deferred()
    time.sleep(0.01)
alive = [ref for ref in watchers if ref() is not None]
assert not alive, f"{len(alive)} callables still alive after both streams completed"

for device, context in enumerate(contexts):
    with context:
        streams[device].close()
        buffers[device].free()
        pinned_words[device].close()
    context.close()
print("each device ran its callbacks in order, after their work, and released them")
