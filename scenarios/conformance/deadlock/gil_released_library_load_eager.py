# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 30
# gilsan: module_loading = eager
# gilsan: description = the twin of gil_held_library_load_eager: the eager load releases the GIL, waits for the host function and completes
"""The fix for gil_held_library_load_eager.py: under CUDA_MODULE_LOADING=EAGER the load still waits for
the running host function, but with the GIL released the host function can return, and then the load
completes."""
import gilsan_impl
from gilsan_impl.program import Driver, napping_host_function

impl = gilsan_impl.current()
stream = impl.warm_stream()
driver = Driver()
driver.make_context_current()
started, naps = napping_host_function()
impl.launch(stream, naps)
started.wait()
library = driver.load_library()
impl.synchronize(stream)
driver.unload_library(library)
