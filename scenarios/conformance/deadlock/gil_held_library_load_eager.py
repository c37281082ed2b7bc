# gilsan: expect = deadlock:gil-driver-inversion
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 3
# gilsan: module_loading = eager
# gilsan: description = the program loads a library holding the GIL while a Python host function runs, under EAGER loading
"""GIL-held cuLibraryLoadData under CUDA_MODULE_LOADING=EAGER: an eager library load loads its kernels
into the context at once, and that load is held back while a host function of the context runs (profile:
enqueued_work_while_host_function_runs.eager.cuLibraryLoadData = call-blocks, measured on the H200). The
host function naps with the GIL released; the main thread loads the library keeping the GIL; the host
function cannot return.

Why it matters: EAGER is the remedy for a first launch held back under lazy loading
(first_launch_library_kernel.py), and it moves the wait to the load. The same load under the default
lazy loading returns (gil_held_library_load_lazy.py): load libraries before host functions are in
flight, or with the GIL released.
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
held.load_library()
print("not reached")
