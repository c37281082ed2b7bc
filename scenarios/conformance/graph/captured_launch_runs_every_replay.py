# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = capture
# gilsan: timeout = 60
# gilsan: description = a host function launched on a capturing stream runs at every one of 100 replays of the graph
"""Capture, replays: a host function launched while its stream captures becomes a host node of the
captured graph, so it runs once per replay, 100 times here, though it was "launched" once. The caller
drops its references before the first replay.

Why it matters: CuPy's own comment in cupy PR #9279 says its launch_host_func, under capture, drops the
callable after the first call; from the second replay on the driver calls a freed trampoline argument.
This is the check that an implementation ties the callable to the graph, not to the first run.
"""
import gc

import gilsan_impl


class Counter:
    runs = 0

    def __call__(self, step):
        Counter.runs += step


impl = gilsan_impl.current()
stream = impl.new_stream()
graph = impl.captured_launch(stream, Counter(), 1)
gc.collect()
for _ in range(100):
    impl.launch_graph(graph, stream)
impl.synchronize(stream)
impl.release_graph(graph)
assert Counter.runs == 100, Counter.runs
print(f"{impl.name}: the captured host function ran at each of 100 replays")
