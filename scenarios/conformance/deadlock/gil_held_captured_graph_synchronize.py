# gilsan: expect = deadlock:gil-driver-inversion
# gilsan: implementations = any
# gilsan: capabilities = capture
# gilsan: timeout = 3
# gilsan: description = a captured graph replays a Python host function while the stream is synchronized holding the GIL
"""GIL-held synchronize after replaying a captured graph: the host function launched during capture
replays through the implementation's trampoline, which waits for the GIL the main thread holds.

The twin, gil_released_captured_graph_synchronize.py, is the fix.
"""
import gilsan_impl

impl = gilsan_impl.current()
stream = impl.warm_stream()
graph = impl.captured_launch(stream, print, "not reached: the main thread holds the GIL")
impl.busy(stream, 200)
impl.launch_graph(graph, stream)
impl.synchronize_holding_gil(stream)
print("not reached")
