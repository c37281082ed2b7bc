# gilsan: expect = deadlock:gil-driver-inversion
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 3
# gilsan: module_loading = eager
# gilsan: description = gil_held_wait_for_native_host_function under EAGER loading: the shared callback thread does not depend on the mode
"""gil_held_wait_for_native_host_function.py under CUDA_MODULE_LOADING=EAGER (profile:
enqueued_work_while_host_function_runs.eager.cuLaunchHostFunc = work-waits, measured on the H200): the
native host function on the other stream waits for the running Python host function in both modes, so
waiting for it with the GIL held hangs both here too.
"""
import gilsan_impl
from gilsan_impl.program import Driver, napping_host_function

impl = gilsan_impl.current()
stream = impl.warm_stream()
released, held = Driver(), Driver(hold_gil=True)
released.make_context_current()
other = released.new_stream()
started, naps = napping_host_function()
impl.launch(stream, naps)
started.wait()
held.launch_native_host_function(other)
held.stream_synchronize(other)
print("not reached")
