# gilsan: expect = pass
# gilsan: drivers = sim, real
# gilsan: timeout = 60
# gilsan: description = a captured host node replays 100 times; destroying the graph releases the callable
"""host_launch on a capturing stream adds a host node to the captured graph.

The graph owns the callable through a CUDA user object. The exec is launched 100 times and the callable
runs 100 times; it stays alive while the graph or the exec exists, and is released (weakref dead) once
both are gone and their launches completed. The user object's destructor runs on a driver thread, so the
release itself happens later on a thread that holds the GIL.
"""
import time
import weakref

import gilsan


class Counter:
    def __init__(self):
        self.runs = 0

    def __call__(self, step):
        self.runs += step


stream = gilsan.Stream()
counter = Counter()
alive = weakref.ref(counter)

stream.begin_capture()
stream.work(1)
gilsan.host_launch(stream, counter, 1)
graph = stream.end_capture()
assert graph.python_host_nodes == 1
exec_ = graph.instantiate()

for _ in range(100):
    exec_.launch(stream)
stream.synchronize()
assert counter.runs == 100, counter.runs

del counter
graph.close()
stream.synchronize()
assert alive() is not None, "released while an exec still held it"
exec_.close()
stream.synchronize()

deadline = time.monotonic() + 20
while alive() is not None and time.monotonic() < deadline:
    gilsan._release_deferred()
    time.sleep(0.01)
assert alive() is None, "the callable was not released after the graph and its exec were destroyed"
print("100 replays, then released")
