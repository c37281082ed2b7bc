# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 30
# gilsan: module_loading = lazy
# gilsan: description = the twin of gil_held_library_load_eager under LAZY loading: the load defers the kernels' loads and returns
"""The twin of gil_held_library_load_eager.py under CUDA_MODULE_LOADING=LAZY: the library load loads no
kernel yet, and it returns while a Python host function runs, with the GIL held (profile:
enqueued_work_while_host_function_runs.lazy.cuLibraryLoadData = proceeds, and
while_host_function_runs.cuLibraryLoadData = returns, both measured on the H200). The wait moves to the
kernel's first use (gil_held_first_kernel_use.py), which this program makes only after the host
function has ended.
"""
import gilsan_impl
from gilsan_impl.program import Driver, napping_host_function

impl = gilsan_impl.current()
stream = impl.warm_stream()
released, held = Driver(), Driver(hold_gil=True)
released.make_context_current()
started, naps = napping_host_function()
impl.launch(stream, naps)
started.wait()
library = held.load_library()
impl.synchronize(stream)
released.kernel_function(library)
released.unload_library(library)
