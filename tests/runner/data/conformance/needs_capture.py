# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = capture
# gilsan: description = skipped, with the adapter's reason, for an implementation without capture
import gilsan_impl

impl = gilsan_impl.current()
stream = impl.new_stream()
graph = impl.captured_launch(stream, print, "captured")
impl.launch_graph(graph, stream)
impl.synchronize(stream)
impl.release_graph(graph)
