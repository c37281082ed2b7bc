# gilsan: expect = deadlock:gil-driver-inversion
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 30
# gilsan: module_loading = lazy
# gilsan: description = first launch of a library's kernel passed as the function and its completion, GIL held, while a Python host function runs
"""The first use of a kernel in a context, made and waited for with the GIL held while a Python host
function runs, under lazy loading (CUDA_MODULE_LOADING=LAZY, the default since CUDA 12.2; the header
pins it, since the driver reads it once, at cuInit). The profile's cell
enqueued_work_while_host_function_runs.lazy.cuLaunchKernel#first-library-kernel decides: on the H200
(driver 580.159.04) it is call-blocks, the launch waits for the host function, which needs the GIL to
end, so the run is a gil-driver-inversion. The same program under EAGER completes
(first_launch_library_kernel_eager.py). A program that warms its kernels first
(warmed_up_first_kernel_use.py), loads eagerly, or releases the GIL around the launch and its
synchronize cannot hang here.
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
