# gilsan: expect = pass
# gilsan: drivers = sim, real
# gilsan: timeout = 20
# gilsan: description = the fixed twin: the main thread reaches the Barrier before it synchronizes
"""`barrier_in_host_function.py` fixed: the main thread meets the host function at the barrier first and
synchronizes the stream after.
"""
import threading

import gilsan

stream = gilsan.Stream()
both = threading.Barrier(2)


def meet():
    both.wait(timeout=10)


gilsan.host_launch(stream, meet)
both.wait(timeout=10)
stream.synchronize()
print("both parties met")
