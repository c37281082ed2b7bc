# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 30
# gilsan: description = the twin of gil_held_module_load: the load releases the GIL and completes
"""The fix for gil_held_module_load.py: load with the GIL released."""
import gilsan_impl
from gilsan_impl.program import Driver, napping_host_function

impl = gilsan_impl.current()
stream = impl.warm_stream()
driver = Driver()
driver.make_context_current()
started, naps = napping_host_function()
impl.launch(stream, naps)
started.wait()
driver.unload_module(driver.load_module())
impl.synchronize(stream)
