# gilsan: expect = report:gil-held-blocking-call
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 30
# gilsan: module_loading = eager
# gilsan: description = first_launch_module_function under EAGER loading: the first launch and its completion proceed
"""first_launch_module_function.py under CUDA_MODULE_LOADING=EAGER (profile:
enqueued_work_while_host_function_runs.eager.cuLaunchKernel#first-module-function = proceeds, measured
on the H200; cuModuleLoadData loads the module whole in both modes): the GIL-held first launch and the
GIL-held wait for it complete while the Python host function naps, and the sanitizer reports the
GIL-held synchronize, as under lazy loading.
"""
import gilsan_impl
from gilsan_impl.program import Driver, napping_host_function

impl = gilsan_impl.current()
stream = impl.warm_stream()
released, held = Driver(), Driver(hold_gil=True)
released.make_context_current()
module = released.load_module()
function = released.module_function(module)
other = released.new_stream()
started, naps = napping_host_function()
impl.launch(stream, naps)
started.wait()
held.launch_kernel(function, other)
held.stream_synchronize(other)
impl.synchronize(stream)
released.destroy_stream(other)
released.unload_module(module)
