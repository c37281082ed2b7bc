# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 30
# gilsan: description = the twin of gil_held_free: cuMemFree with the GIL released waits for the host function and completes
"""The fix for gil_held_free.py: the free still waits for the running host function, but with the GIL
released the host function can finish, and then the free completes."""
import gilsan_impl
from gilsan_impl.program import Driver, napping_host_function

impl = gilsan_impl.current()
stream = impl.warm_stream()
driver = Driver()
driver.make_context_current()
memory = driver.allocate(1 << 20)
started, naps = napping_host_function()
impl.launch(stream, naps)
started.wait()
driver.free(memory)
impl.synchronize(stream)
