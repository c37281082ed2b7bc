# gilsan: expect = deadlock:gil-driver-inversion
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 3
# gilsan: module_loading = eager
# gilsan: description = the program unloads a library holding the GIL while a Python host function runs, under EAGER loading
"""GIL-held cuLibraryUnload under CUDA_MODULE_LOADING=EAGER: an eager library has its kernels loaded in
the context, and unloading them is held back while a host function of the context runs (profile:
eager_call_overrides.while_host_function_runs.cuLibraryUnload = blocks, measured on the H200; under the
default lazy loading the same unload returns: gil_held_library_unload_lazy.py). The host function naps
with the GIL released; the main thread unloads the library keeping the GIL; the host function cannot
return.

Why it matters: libraries are unloaded from finalizers (a JIT cache, a module object collected), at
moments the program does not choose, and EAGER is the remedy users reach for when a first launch hangs.
The twin, gil_released_library_unload_eager.py, is the fix.
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
held.unload_library(library)
print("not reached")
