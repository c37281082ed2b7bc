# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 30
# gilsan: module_loading = eager
# gilsan: description = gil_held_first_kernel_use under EAGER loading: the first cuKernelGetFunction loads nothing and returns
"""The twin of gil_held_first_kernel_use.py under CUDA_MODULE_LOADING=EAGER: the library's kernel was
loaded into the context by cuLibraryLoadData, so its first cuKernelGetFunction, made with the GIL held
while a Python host function runs, is not held back (profile:
enqueued_work_while_host_function_runs.eager.cuKernelGetFunction#first = proceeds, measured on the
H200), and the run completes. The sanitizer judges the call by the EAGER call table, in which
cuKernelGetFunction returns (eager_call_overrides, or, in a profile that predates them, what the cells
imply: docs/driver-profile.md), so it reports nothing either.
"""
import gilsan_impl
from gilsan_impl.program import Driver, napping_host_function

impl = gilsan_impl.current()
stream = impl.warm_stream()
released, held = Driver(), Driver(hold_gil=True)
released.make_context_current()
library = released.load_library()
started, naps = napping_host_function()
impl.launch(stream, naps)
started.wait()
held.kernel_function(library)
impl.synchronize(stream)
released.unload_library(library)
