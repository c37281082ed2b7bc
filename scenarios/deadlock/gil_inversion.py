# gilsan: expect = deadlock:gil-driver-inversion
# gilsan: drivers = sim, real
# gilsan: timeout = 3
# gilsan: description = a GIL-holding synchronize waits for a Python host function that waits for the GIL
"""The GIL / driver inversion.

The main thread enqueues device work and a Python host function, then synchronizes the stream while
holding the GIL, as a C extension that forgets Py_BEGIN_ALLOW_THREADS would. The driver's callback
thread reaches the host function and waits for the GIL; the main thread waits for the stream, which
waits for the host function. Nothing moves: this must hang on both drivers, and the watchdog names the
cycle: main -> stream -> callback thread -> GIL -> main.
"""
import gilsan

stream = gilsan.Stream()
stream.work(200)
gilsan.host_launch(stream, print, "unreachable: the main thread holds the GIL")
stream.synchronize(hold_gil=True)
print("not reached")
