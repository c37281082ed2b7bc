# gilsan: expect = report:gil-held-blocking-call
# gilsan: drivers = sim, real
# gilsan: timeout = 20
# gilsan: description = a GIL-holding ctypes.PyDLL synchronize of an idle stream while a Python host function is pending elsewhere
"""A GIL-holding synchronize that did not hang this time.

Stream A has a ctypes Python host function pending behind device work. The main thread synchronizes
stream B, which is idle, through ctypes.PyDLL (GIL held): it returns at once, so nothing hangs. But a
synchronize with the GIL held is one enqueue away from the inversion, and the sanitizer reports it
(gil-held-blocking-call) on the real driver as on the simulated one. The fix is the same call through
ctypes.CDLL, which releases the GIL: `gil_released_synchronize.py`.
"""
import _libcuda as cuda

cuda.init()
pending_stream = cuda.new_stream()
idle_stream = cuda.new_stream()
callback = cuda.HOST_FN(lambda user_data: None)
cuda.busy(pending_stream, 200)
cuda.launch_host_func(pending_stream, callback)
cuda.synchronize(idle_stream, cuda.DRIVER_KEEPING_GIL)
cuda.synchronize(pending_stream, cuda.DRIVER)
print("both streams completed")
