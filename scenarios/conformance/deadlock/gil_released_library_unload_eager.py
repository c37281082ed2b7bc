# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 30
# gilsan: module_loading = eager
# gilsan: description = the twin of gil_held_library_unload_eager: the unload releases the GIL, waits for the host function and completes
"""The fix for gil_held_library_unload_eager.py: the eager unload still waits for the running host
function, but with the GIL released the host function can return, and then the unload completes."""
import gilsan_impl
from gilsan_impl.program import Driver, napping_host_function

impl = gilsan_impl.current()
stream = impl.warm_stream()
driver = Driver()
driver.make_context_current()
library = driver.load_library()
started, naps = napping_host_function()
impl.launch(stream, naps)
started.wait()
driver.unload_library(library)
impl.synchronize(stream)
