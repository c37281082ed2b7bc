# gilsan: expect = deadlock:gil-driver-inversion
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 3
# gilsan: description = cuda-python #517: the bindings' callback wrapper takes the GIL while the main thread holds it in an event wait
"""Reproduces the mechanism discussed in the cuda-python PR #517 review thread: the bindings' host-callback
wrapper acquires the GIL to call the Python function; a 2021 investigation found the main thread holding
the GIL (in a driver wait) while the callback thread could not acquire it.

Here the callback goes through the implementation's wrapper, and the main thread waits on an event
recorded after it, in the driver, with the GIL held: the callback thread blocks in the wrapper's GIL
acquisition. The twin, cuda_python_517_gil_released.py, waits with the GIL released.
"""
import gilsan_impl
from gilsan_impl.program import Driver

impl = gilsan_impl.current()
stream = impl.warm_stream()
driver = Driver(hold_gil=True)
event = driver.new_event()
impl.busy(stream, 100)
impl.launch(stream, print, "not reached: the wrapper cannot take the GIL")
driver.record_event(event, stream.handle)
driver.event_synchronize(event)
print("not reached")
