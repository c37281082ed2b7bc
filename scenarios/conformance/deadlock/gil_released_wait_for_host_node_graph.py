# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 30
# gilsan: module_loading = eager
# gilsan: description = the twin of gil_held_wait_for_host_node_graph: the wait releases the GIL and completes
"""The fix for gil_held_wait_for_host_node_graph.py: the graph's native host node still runs only after
the Python host function, but the program waits for it with the GIL released, so both complete."""
import gilsan_impl
from gilsan_impl.program import Driver, napping_host_function

impl = gilsan_impl.current()
stream = impl.warm_stream()
driver = Driver()
driver.make_context_current()
other = driver.new_stream()
graph, executable = driver.native_host_node_graph()
started, naps = napping_host_function()
impl.launch(stream, naps)
started.wait()
driver.launch_graph(executable, other)
driver.stream_synchronize(other)
impl.synchronize(stream)
driver.destroy_graph(graph, executable)
driver.destroy_stream(other)
