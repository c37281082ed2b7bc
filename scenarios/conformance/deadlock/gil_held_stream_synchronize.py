# gilsan: expect = deadlock:gil-driver-inversion
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 3
# gilsan: description = the program synchronizes the stream holding the GIL while a Python host function waits for it
"""GIL-held stream synchronize: the program launches a Python host function behind device work, then
waits for the stream in a driver call that keeps the GIL (a C extension without Py_BEGIN_ALLOW_THREADS).
The driver's thread reaches the host function and the implementation's trampoline waits for the GIL;
the main thread waits for the stream. Whatever the implementation, this hangs, and the watchdog names
the cycle: main -> stream -> callback thread -> GIL -> main.

Why it matters: it is the deadlock behind most of the reports (numba-cuda #317, LMCache #2952, CuPy's
527a9cb8b). The twin, gil_released_stream_synchronize.py, is the fix.
"""
import gilsan_impl

impl = gilsan_impl.current()
stream = impl.warm_stream()
impl.busy(stream, 200)
impl.launch(stream, print, "not reached: the main thread holds the GIL")
impl.synchronize_holding_gil(stream)
print("not reached")
