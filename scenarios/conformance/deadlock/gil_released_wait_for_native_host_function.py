# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 30
# gilsan: module_loading = lazy
# gilsan: description = the twin of gil_held_wait_for_native_host_function: the wait releases the GIL and completes
"""The fix for gil_held_wait_for_native_host_function.py: the native host function on the other stream
still runs only after the Python host function (one callback thread per context), but the program
waits for it with the GIL released, so the Python host function can return and both complete."""
import gilsan_impl
from gilsan_impl.program import Driver, napping_host_function

impl = gilsan_impl.current()
stream = impl.warm_stream()
driver = Driver()
driver.make_context_current()
other = driver.new_stream()
started, naps = napping_host_function()
impl.launch(stream, naps)
started.wait()
driver.launch_native_host_function(other)
driver.stream_synchronize(other)
impl.synchronize(stream)
driver.destroy_stream(other)
