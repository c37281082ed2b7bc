# gilsan: expect = report:gil-held-blocking-call
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 30
# gilsan: module_loading = eager
# gilsan: description = first_launch_library_kernel under EAGER loading: the library's kernels are loaded with it, so the first launch is not held back
"""The twin of first_launch_library_kernel.py under CUDA_MODULE_LOADING=EAGER: cuLibraryLoadData loads
the kernel before any host function is in flight, and its first launch in the context, made with the
GIL held while a Python host function runs, is no longer a load (profile:
enqueued_work_while_host_function_runs.eager.cuLaunchKernel#first-library-kernel = proceeds, measured on
the H200). The launch returns and the kernel completes; the run ends, and the sanitizer reports the
GIL-held synchronize of the other stream, a habit that hangs as soon as that stream has a Python host
function behind it.
"""
import gilsan_impl
from gilsan_impl.program import Driver, napping_host_function

impl = gilsan_impl.current()
stream = impl.warm_stream()
released, held = Driver(), Driver(hold_gil=True)
released.make_context_current()
library = released.load_library()
function = released.library_kernel(library)
other = released.new_stream()
started, naps = napping_host_function()
impl.launch(stream, naps)
started.wait()
held.launch_kernel(function, other)
held.stream_synchronize(other)
impl.synchronize(stream)
released.destroy_stream(other)
released.unload_library(library)
