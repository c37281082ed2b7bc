# gilsan: expect = deadlock:callback-serialization
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 3
# gilsan: description = a host function waits for another stream, whose next step is a host function of the same context
"""A host function waiting on another stream's host function: the driver runs every host function of a
context on one thread, across streams (measured on the H200). `first` runs on stream s1 and waits for
stream s2, whose work ends in `second`; `second` cannot start until the callback thread is free, and the
callback thread is busy running `first`. The device work in front of `second` makes `first` start first.

Why it matters: each stream looks independent in the program's code; the serialization is invisible.
The twin, wait_for_other_stream_outside_the_host_function.py, does the cross-stream wait from the
launching thread.
"""
import gilsan_impl
from gilsan_impl.program import Driver

impl = gilsan_impl.current()
s1 = impl.warm_stream()
s2 = impl.warm_stream()
driver = Driver()

impl.busy(s2, 100)
impl.launch(s2, print, "not reached: the callback thread is busy")
impl.launch(s1, driver.stream_synchronize, s2.handle)
impl.synchronize(s1)
print("not reached")
