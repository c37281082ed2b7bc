# gilsan: expect = deadlock:gil-driver-inversion
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 3
# gilsan: module_loading = eager
# gilsan: description = a GIL-holding thread waits for a graph of one native host node on another stream while a Python host function runs
"""The graph twin of gil_held_wait_for_native_host_function.py, under CUDA_MODULE_LOADING=EAGER to show
that the loading mode has nothing to do with it: a graph launched on another stream whose one node is a
native host function completes only once the running Python host function has ended (profile:
enqueued_work_while_host_function_runs.eager.cuGraphLaunch = work-waits, measured on the H200, the same
under LAZY). Waiting for it with the GIL held hangs both.
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
