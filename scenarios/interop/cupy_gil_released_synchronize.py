# gilsan: expect = pass
# gilsan: drivers = real
# gilsan: needs = cupy
# gilsan: timeout = 60
# gilsan: description = the fix of cupy_gil_inversion.py and cupy_gil_held_synchronize_report.py: the synchronize releases the GIL
"""The twin of `cupy_gil_inversion.py` with the fix applied: ctypes.CDLL releases the GIL around
cuStreamSynchronize, so CuPy's callback gets the GIL and the stream completes."""
import ctypes

import cupy

import gilsan

stream = cupy.cuda.Stream(non_blocking=True)
gilsan.Stream.from_handle(stream.ptr).work(200)
ran = []
stream.launch_host_func(lambda _: ran.append(True), None)
libcuda = ctypes.CDLL("libcuda.so.1")  # CDLL: the GIL is released around the call
libcuda.cuStreamSynchronize.argtypes = [ctypes.c_void_p]
assert libcuda.cuStreamSynchronize(ctypes.c_void_p(stream.ptr)) == 0
assert ran == [True], ran
print("the callback ran")
