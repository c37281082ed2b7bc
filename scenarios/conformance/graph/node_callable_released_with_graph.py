# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = graph-node
# gilsan: timeout = 30
# gilsan: description = a host node's callable lives as long as its graph and is released when the graph goes
"""Graph host nodes, lifetime: the callable must stay alive while the graph can still be launched (the
caller kept only a weak reference), and must be released once the graph (and its executable form) are
gone and their launches completed.

Why it matters: a graph outlives the code that built it (it is cached and replayed for a whole training
run), so the implementation, not the caller, has to own the callable; and it must let go when the graph
is destroyed, or every rebuilt graph leaks what its callbacks hold.
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
graph = impl.graph_with_host_node(stream, callable_)
del callable_
for _ in range(3):
    impl.launch_graph(graph, stream)
    impl.synchronize(stream)
    gc.collect()
    assert alive() is not None, "the callable was released while its graph could still be launched"
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
assert alive() is None, "the callable was still alive 2 s after its graph was destroyed"
print(f"{impl.name}: the callable lived exactly as long as its graph")
