# gilsan: expect = deadlock:gil-driver-inversion
# gilsan: drivers = sim, real
# gilsan: needs = two-devices
# gilsan: timeout = 5
# gilsan: description = a GIL-holding wait on device 0 reaches, through a device-0 callback, device 1's callback that needs the GIL
"""The GIL / driver inversion spread over two devices.

Device 1's stream has device work, then a Python host function. Device 0's stream has a Python host
function that waits (GIL released) for device 1's stream -- allowed inside a host function on the real
driver for another stream. Once that callback is waiting, the main thread synchronizes device 0's
stream holding the GIL. When device 1's work ends, its callback needs the GIL: main -> device 0's
stream -> device 0's callback thread -> device 1's stream -> device 1's callback thread -> the GIL ->
main. The watchdog must name both devices' streams and callback threads in one cycle.
"""
import threading
import time

import gilsan

assert gilsan.device_count() >= 2, "the runner gives this scenario two devices"
context0, context1 = gilsan.Context(0), gilsan.Context(1)
with context1:
    stream1 = gilsan.Stream()
    stream1.work(300)
    gilsan.host_launch(stream1, print, "unreachable: the main thread holds the GIL")

waiting_on_device1 = threading.Event()


def wait_for_device1():
    waiting_on_device1.set()
    stream1.synchronize()  # releases the GIL while it waits


with context0:
    stream0 = gilsan.Stream()
    gilsan.host_launch(stream0, wait_for_device1)
    assert waiting_on_device1.wait(timeout=4), "device 0's callback did not start"
    time.sleep(0.05)  # GIL released: the callback is inside its synchronize by the end of this
    stream0.synchronize(hold_gil=True)
print("not reached")
