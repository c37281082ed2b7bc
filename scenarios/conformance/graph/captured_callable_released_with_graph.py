# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = capture
# gilsan: timeout = 30
# gilsan: description = a captured host function's callable lives as long as the captured graph, and no longer
"""Capture, lifetime: the callable of a host function launched during capture must survive every replay
(weakref alive after each), and be released once the graph and its executable form are destroyed.

Why it matters: both failure modes are real. Released after the first run (cupy PR #9279's comment) is
a use-after-free at the second replay; never released is a leak per captured graph, and graphs are
captured again whenever shapes change.
"""
import gc
import time
import weakref

import gilsan_impl


class Callable:
    runs = 0

    def __call__(self):
        Callable.runs += 1


impl = gilsan_impl.current()
stream = impl.new_stream()
callable_ = Callable()
alive = weakref.ref(callable_)
graph = impl.captured_launch(stream, callable_)
del callable_
for _ in range(3):
    impl.launch_graph(graph, stream)
    impl.synchronize(stream)
    gc.collect()
    assert alive() is not None, "the callable was released while the captured graph could still be launched"
assert Callable.runs == 3, Callable.runs

impl.release_graph(graph)
del graph
impl.synchronize(stream)
# Two seconds: a poll with nothing else happening looks like a hang to the watchdog after ten quiet
# periods (5 s by default, docs/watchdog.md), and a failing implementation must fail here, not there.
deadline = time.monotonic() + 2
while alive() is not None and time.monotonic() < deadline:
    gc.collect()
    time.sleep(0.02)
assert alive() is None, "the callable was still alive 2 s after the captured graph was destroyed"
print(f"{impl.name}: the captured callable lived exactly as long as its graph")
