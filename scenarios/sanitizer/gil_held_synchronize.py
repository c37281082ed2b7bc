# gilsan: expect = report:gil-held-blocking-call
# gilsan: drivers = sim, real
# gilsan: timeout = 20
# gilsan: description = a synchronize made with the GIL held, with no host function pending
"""A blocking driver call with the GIL held.

No host function was ever launched on this stream, so nothing can deadlock on this run. But a
synchronize that keeps the GIL blocks every Python thread for as long as the device is busy, and
deadlocks as soon as any Python callback is pending on the stream: the sanitizer reports the call.
"""
import gilsan

stream = gilsan.Stream()
stream.work(20)
stream.synchronize(hold_gil=True)
print("synchronized with the GIL held")
