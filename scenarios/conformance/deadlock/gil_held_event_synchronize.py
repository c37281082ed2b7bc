# gilsan: expect = deadlock:gil-driver-inversion
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 3
# gilsan: description = the program waits for an event recorded after a Python host function, holding the GIL
"""GIL-held event synchronize: an event is recorded behind a Python host function, and the program waits
for it in cuEventSynchronize with the GIL held. The event completes only after the host function, whose
trampoline waits for the GIL: main -> event -> stream -> callback thread -> GIL -> main.

Why it matters: events are how libraries wait for each other's streams; CuPy's Event.synchronize held
the GIL until commit 527a9cb8b. The twin, gil_released_event_synchronize.py, waits with it released.
"""
import gilsan_impl
from gilsan_impl.program import Driver

impl = gilsan_impl.current()
stream = impl.warm_stream()
driver = Driver(hold_gil=True)
event = driver.new_event()
impl.busy(stream, 200)
impl.launch(stream, print, "not reached: the main thread holds the GIL")
driver.record_event(event, stream.handle)
driver.event_synchronize(event)
print("not reached")
