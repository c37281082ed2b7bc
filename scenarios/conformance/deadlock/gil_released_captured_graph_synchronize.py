# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = capture
# gilsan: timeout = 30
# gilsan: description = the twin of gil_held_captured_graph_synchronize: the implementation's synchronize releases the GIL
"""The fix for gil_held_captured_graph_synchronize.py: synchronize with the GIL released."""
import gilsan_impl

impl = gilsan_impl.current()
stream = impl.warm_stream()
ran = []
graph = impl.captured_launch(stream, ran.append, "ran")
impl.busy(stream, 200)
impl.launch_graph(graph, stream)
impl.synchronize(stream)
impl.release_graph(graph)
assert ran == ["ran"], ran
