# gilsan: expect = deadlock:gil-driver-inversion
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 3
# gilsan: module_loading = lazy
# gilsan: description = the first use of a lazily loaded kernel, holding the GIL, while a Python host function runs
"""GIL-held first kernel use while a Python host function runs: with a library (cuLibraryLoadData) the
driver loads each kernel on its first use, and cuKernelGetFunction, which does it, is held back while a
host function runs under lazy loading (profile: enqueued_work_while_host_function_runs.lazy.
cuKernelGetFunction#first = call-blocks, measured on the H200; the header pins the mode). The program's first launch of a kernel needs that function; doing it with the GIL held while a
Python host function naps hangs both.

Why it matters: lazy loading (CUDA_MODULE_LOADING=LAZY, the default since CUDA 12.2) moves module loading
from start-up to the first launch of each kernel, anywhere in a run. The twin,
warmed_up_first_kernel_use.py, gets the function before any host function is in flight.
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
print("not reached")
