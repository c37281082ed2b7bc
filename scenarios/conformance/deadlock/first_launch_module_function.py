# gilsan: expect = report:gil-held-blocking-call
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 30
# gilsan: module_loading = lazy
# gilsan: description = first launch of a module's function and its completion, GIL held, while a Python host function runs
"""The twin of first_launch_library_kernel.py on the module path: the function comes from
cuModuleLoadData + cuModuleGetFunction, and the profile's cell
enqueued_work_while_host_function_runs.lazy.cuLaunchKernel#first-module-function decides the outcome
the same way. On the H200 it is proceeds in both modes (a module is loaded whole by cuModuleLoadData):
the run completes, and the sanitizer reports the GIL-held synchronize.
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
