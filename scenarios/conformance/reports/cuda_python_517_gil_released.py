# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 30
# gilsan: description = the twin of cuda_python_517_callback_wrapper: the event wait releases the GIL
"""The fix for cuda_python_517_callback_wrapper.py: the event wait releases the GIL, the wrapper takes
it, the callback runs."""
import gilsan_impl
from gilsan_impl.program import Driver

impl = gilsan_impl.current()
stream = impl.warm_stream()
driver = Driver()
event = driver.new_event()
ran = []
impl.busy(stream, 100)
impl.launch(stream, ran.append, "ran")
driver.record_event(event, stream.handle)
driver.event_synchronize(event)
driver.destroy_event(event)
assert ran == ["ran"], ran
