# gilsan: expect = pass
# gilsan: drivers = sim, real
# gilsan: timeout = 30
# gilsan: description = copy_host and copy_to through a PinnedRing run no Python on the driver's thread: the sanitizer reports nothing
"""The GIL-free host copies under the sanitizer (on by default in `gilsan run`).

copy_host's host function is native code that never takes the GIL, and copy_to's chunks are a device
copy into a pinned slot followed by such a copy_host; every wait the module makes releases the GIL.
So no checker may fire: no lock-order cycle through the GIL, no GIL-held blocking call, no CUDA call
inside a host function. A replayed graph of the same copy is checked the same way.
"""
import os

import gilsan

content = os.urandom(3 * 65536 + 17)
device = gilsan.DeviceBuffer(len(content))
device.copy_from_host(content)
stream = gilsan.Stream()

host_copy = bytearray(len(content))
gilsan.copy_host(stream, host_copy, content)

staged = bytearray(len(content))
# Not `with`: a ring used by a captured copy cannot be closed until the graph's release has arrived
# (asynchronously, from the driver's thread); dropping it is always safe (docs/python-module.md).
ring = gilsan.PinnedRing(2, 65536, host_threads=2)
gilsan.copy_to(staged, device, stream, staging=ring)
stream.synchronize()

replayed = bytearray(len(content))
stream.begin_capture()
gilsan.copy_to(replayed, device, stream, staging=ring)
graph = stream.end_capture()
executable = graph.instantiate()
for _ in range(3):
    executable.launch(stream)
stream.synchronize()
executable.close()
graph.close()
del ring

assert host_copy == content and staged == content and replayed == content
print("copies intact, nothing reported")
