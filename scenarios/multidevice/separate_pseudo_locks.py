# gilsan: expect = pass
# gilsan: drivers = sim, real
# gilsan: needs = two-devices
# gilsan: timeout = 20
# gilsan: suppressions = separate_pseudo_locks.supp
# gilsan: description = a finished callback on device 1, then a GIL-holding synchronize on device 0: no cycle
"""The sanitizer keeps the two devices' pseudo-locks apart.

scenarios/sanitizer/finished_callback_inversion.py is reported as a lock-order cycle: a Python host
function that needed the GIL ran on a stream the main thread later synchronizes with the GIL held. Here
the Python host function runs on device 1's stream and the GIL-holding synchronize is of device 0's
stream, which never carries a Python host function: device 0's stream completion does not wait for
device 1's callback thread, so there is no cycle. The blocking call with the GIL held is still a
finding (gil-held-blocking-call), suppressed by separate_pseudo_locks.supp so that any other report,
a cycle above all, fails the scenario.
"""
import threading

import gilsan

assert gilsan.device_count() >= 2, "the runner gives this scenario two devices"
context0, context1 = gilsan.Context(0), gilsan.Context(1)
ran = threading.Event()
with context1:
    stream1 = gilsan.Stream()
    gilsan.host_launch(stream1, ran.set)
    assert ran.wait(timeout=10), "device 1's host function did not run"
    stream1.synchronize()
with context0:
    stream0 = gilsan.Stream()
    stream0.work(20)
    stream0.synchronize(hold_gil=True)
    stream0.close()
with context1:
    stream1.close()
context0.close()
context1.close()
print("no cycle between the devices")
