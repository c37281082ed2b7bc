# gilsan: expect = pass
# gilsan: drivers = sim, real
# gilsan: timeout = 20
# gilsan: description = a native function pointer (libc's free) as a host function through ctypes, synchronized with the GIL held
"""A native host function needs no GIL: a GIL-holding synchronize cannot deadlock with it.

libc's free(NULL) is passed to cuLaunchHostFunc as a plain function pointer. The synchronize keeps the GIL
(ctypes.PyDLL), which the sanitizer reports as a risky habit (gil-held-blocking-call) but which cannot
hang here; with the GIL released, as this scenario does, there is nothing to report.
"""
import ctypes

import _libcuda as cuda

libc = ctypes.CDLL(None)
cuda.init()
stream = cuda.new_stream()
free = ctypes.cast(libc.free, ctypes.c_void_p)
cuda.busy(stream, 100)
for _ in range(3):
    cuda.check(cuda.DRIVER.cuLaunchHostFunc(ctypes.c_void_p(stream), free, None), "cuLaunchHostFunc")
cuda.synchronize(stream)
print("three native host functions ran")
