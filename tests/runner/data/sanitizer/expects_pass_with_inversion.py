# gilsan: expect = pass
# gilsan: drivers = sim
# gilsan: timeout = 20
# gilsan: description = claims to pass, but synchronizes with the GIL held after a Python host function
"""A scenario that runs cleanly but whose order can deadlock: the sanitizer's report fails it."""
import threading

import gilsan

stream = gilsan.Stream()
ran = threading.Event()
gilsan.host_launch(stream, ran.set)
assert ran.wait(timeout=10), "the host function did not run"
stream.synchronize(hold_gil=True)
