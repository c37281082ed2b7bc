# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: needs = two-devices
# gilsan: timeout = 30
# gilsan: description = a host function on device 0 waits for one on device 1; each device's callbacks run on their own
"""Two devices: the driver runs host functions on one thread per context, so a host function of device 0's
primary context and one of device 1's run independently. Here device 0's host function waits (with a
timeout) for device 1's to signal it, which works only if both run at once.

Why it matters: an implementation that funnels every callback through one thread of its own (a global
queue, a single worker) serializes devices and turns this into a hang. The program makes each device's
context current around its own launches, as a multi-GPU program does.
"""
import threading

import gilsan_impl
from gilsan_impl.program import Driver

impl = gilsan_impl.current()
driver = Driver()
first = impl.new_stream(device=0)
second = impl.new_stream(device=1)
device_0, device_1 = driver.primary_context(0), driver.primary_context(1)
signalled = threading.Event()
outcome = []
driver.set_current(device_0)
impl.launch(first, lambda: outcome.append(signalled.wait(10)))
driver.set_current(device_1)
impl.busy(second, 50)
impl.launch(second, signalled.set)
impl.synchronize(second)
driver.set_current(device_0)
impl.synchronize(first)
assert outcome == [True], "device 0's host function never saw device 1's run"
print(f"{impl.name}: host functions of two devices ran side by side")
