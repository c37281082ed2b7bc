# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = graph-node
# gilsan: timeout = 60
# gilsan: description = a graph's host node runs its callable at every one of 100 launches of the graph
"""Graph host nodes, replays: a graph with one host node is launched 100 times; the callable runs 100 times
with its bound argument, and the caller's own references are gone before the first launch.

Why it matters: a host node's callable is called once per launch, for as long as the graph lives. An
implementation that treats it as a one-shot launch (releases it after the first call) runs freed memory
from the second launch on.
"""
import gc

import gilsan_impl


class Counter:
    runs = 0

    def __call__(self, step):
        Counter.runs += step


impl = gilsan_impl.current()
stream = impl.new_stream()
graph = impl.graph_with_host_node(stream, Counter(), 1)
gc.collect()
for _ in range(100):
    impl.launch_graph(graph, stream)
impl.synchronize(stream)
impl.release_graph(graph)
assert Counter.runs == 100, Counter.runs
print(f"{impl.name}: the host node ran at each of 100 launches")
