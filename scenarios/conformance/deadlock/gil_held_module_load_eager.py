# gilsan: expect = deadlock:gil-driver-inversion
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 3
# gilsan: module_loading = eager
# gilsan: description = gil_held_module_load under EAGER loading: a module load waits for the host function in both modes
"""The twin of gil_held_module_load.py under CUDA_MODULE_LOADING=EAGER: cuModuleLoadData loads the whole
module at once in both modes, and is held back while a host function of the context runs in both
(profile: enqueued_work_while_host_function_runs.eager.cuModuleLoadData = call-blocks, measured on the
H200). Eager loading is no remedy here; loading before host functions are in flight, or with the GIL
released (gil_released_module_load.py), is.
"""
import gilsan_impl
from gilsan_impl.program import Driver, napping_host_function

impl = gilsan_impl.current()
stream = impl.warm_stream()
held = Driver(hold_gil=True)
held.make_context_current()
started, naps = napping_host_function()
impl.launch(stream, naps)
started.wait()
held.load_module()
print("not reached")
