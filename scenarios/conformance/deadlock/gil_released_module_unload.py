# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 30
# gilsan: description = the twin of gil_held_module_unload: the unload releases the GIL and completes
"""The fix for gil_held_module_unload.py: unload with the GIL released."""
import gilsan_impl
from gilsan_impl.program import Driver, napping_host_function

impl = gilsan_impl.current()
stream = impl.warm_stream()
driver = Driver()
driver.make_context_current()
module = driver.load_module()
started, naps = napping_host_function()
impl.launch(stream, naps)
started.wait()
driver.unload_module(module)
impl.synchronize(stream)
