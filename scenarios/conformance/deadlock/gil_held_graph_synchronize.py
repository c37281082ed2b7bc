# gilsan: expect = deadlock:gil-driver-inversion
# gilsan: implementations = any
# gilsan: capabilities = graph-node
# gilsan: timeout = 3
# gilsan: description = a graph with a Python host node is launched, and the stream synchronized holding the GIL
"""GIL-held synchronize after a graph launch: the graph's host node runs the Python callable through the
implementation's trampoline, which waits for the GIL that the synchronizing main thread holds.

Why it matters: graphs hide the host function; a synchronize after a graph launch looks harmless. The
twin, gil_released_graph_synchronize.py, is the fix.
"""
import gilsan_impl

impl = gilsan_impl.current()
stream = impl.warm_stream()
graph = impl.graph_with_host_node(stream, print, "not reached: the main thread holds the GIL")
impl.busy(stream, 200)
impl.launch_graph(graph, stream)
impl.synchronize_holding_gil(stream)
print("not reached")
