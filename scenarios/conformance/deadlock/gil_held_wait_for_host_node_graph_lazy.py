# gilsan: expect = deadlock:gil-driver-inversion
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 3
# gilsan: module_loading = lazy
# gilsan: description = gil_held_wait_for_host_node_graph under the default lazy loading
"""gil_held_wait_for_host_node_graph.py under the default lazy loading (profile:
enqueued_work_while_host_function_runs.lazy.cuGraphLaunch = work-waits, measured on the H200): a graph
of one native host node on another stream completes only once the running Python host function has
ended, so waiting for it with the GIL held hangs both.
"""
import gilsan_impl
from gilsan_impl.program import Driver, napping_host_function

impl = gilsan_impl.current()
stream = impl.warm_stream()
released, held = Driver(), Driver(hold_gil=True)
released.make_context_current()
other = released.new_stream()
graph, executable = released.native_host_node_graph()
started, naps = napping_host_function()
impl.launch(stream, naps)
started.wait()
held.launch_graph(executable, other)
held.stream_synchronize(other)
print("not reached")
