# gilsan: expect = deadlock:gil-driver-inversion
# gilsan: drivers = sim, real
# gilsan: timeout = 20
# gilsan: description = a cuStreamAddCallback Python callback (numba-cuda's path) waits for the GIL held by a PyDLL synchronize
"""numba-cuda #317's shape: stream callbacks added with cuStreamAddCallback are Python functions called
through ctypes, so they need the GIL on the driver's callback thread, while the main thread holds the
GIL and waits in the driver for the stream. The fix releases the GIL: `stream_callback_gil_released.py`.
"""
import ctypes

import _libcuda as cuda

cuda.init()
stream = cuda.new_stream()
callback = cuda.STREAM_CALLBACK(lambda stream, status, user_data: print("unreachable"))
cuda.busy(stream, 200)
cuda.check(cuda.DRIVER.cuStreamAddCallback(ctypes.c_void_p(stream), callback, None, 0), "cuStreamAddCallback")
cuda.synchronize(stream, cuda.DRIVER_KEEPING_GIL)
print("not reached")
