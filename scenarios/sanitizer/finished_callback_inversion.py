# gilsan: expect = report:lock-order-cycle
# gilsan: drivers = sim, real
# gilsan: timeout = 20
# gilsan: description = a Python host function that already finished, then a GIL-holding synchronize of its stream
"""The GIL / driver inversion, predicted on a run that does not hang.

The main thread enqueues a Python host function and waits (GIL released) until it has run; only then
does it synchronize the stream with the GIL held. Nothing is pending, so this run completes -- but the
order is the deadlock of scenarios/deadlock/gil_inversion.py: had the synchronize come a moment
earlier, the callback thread would wait for the GIL held by a thread waiting for the stream. The
sanitizer reports the cycle "the GIL -> completion of the stream -> the GIL" on this first run.
"""
import threading

import gilsan

stream = gilsan.Stream()
ran = threading.Event()
gilsan.host_launch(stream, ran.set)
assert ran.wait(timeout=10), "the host function did not run"
stream.synchronize()  # GIL released: nothing is left on the stream after this
stream.synchronize(hold_gil=True)
print("no hang on this run")
