# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 30
# gilsan: description = the twin of gil_held_event_synchronize: the event wait releases the GIL
"""The fix for gil_held_event_synchronize.py: the same event wait with the GIL released."""
import gilsan_impl
from gilsan_impl.program import Driver

impl = gilsan_impl.current()
stream = impl.warm_stream()
driver = Driver()
event = driver.new_event()
ran = []
impl.busy(stream, 200)
impl.launch(stream, ran.append, "ran")
driver.record_event(event, stream.handle)
driver.event_synchronize(event)
driver.destroy_event(event)
assert ran == ["ran"], ran
