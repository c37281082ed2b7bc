# gilsan: expect = report:gil-held-blocking-call
# gilsan: drivers = real
# gilsan: needs = cupy
# gilsan: timeout = 60
# gilsan: description = a ctypes.PyDLL synchronize of an idle stream while a CuPy Python callback is pending on another
"""A GIL-holding synchronize beside a peer's pending Python callback, that did not hang this time.

Stream A holds a CuPy launch_host_func callback behind device work; the main thread synchronizes the
idle stream B through ctypes.PyDLL, keeping the GIL. It returns at once, but it is the habit that
deadlocks (cupy_gil_inversion.py): the sanitizer reports gil-held-blocking-call from the forwarding
driver's view of the call. The fix: cupy_gil_released_synchronize.py.
"""
import ctypes

import cupy

import gilsan

pending = cupy.cuda.Stream(non_blocking=True)
idle = cupy.cuda.Stream(non_blocking=True)
gilsan.Stream.from_handle(pending.ptr).work(200)
pending.launch_host_func(lambda _: None, None)
libcuda = ctypes.PyDLL("libcuda.so.1")  # PyDLL: the call keeps the GIL
libcuda.cuStreamSynchronize.argtypes = [ctypes.c_void_p]
assert libcuda.cuStreamSynchronize(ctypes.c_void_p(idle.ptr)) == 0
pending.synchronize()
print("both streams completed")
