# gilsan: expect = pass
# gilsan: drivers = sim, real
# gilsan: timeout = 20
# gilsan: description = the fix of callback_calls_driver.py: the memory is allocated before the host function is launched
"""The twin of `callback_calls_driver.py` with the fix applied: the host function only uses what was
allocated for it before, and calls no CUDA."""
import ctypes

import _libcuda as cuda

cuda.init()
stream = cuda.new_stream()
pointer = ctypes.c_uint64()
cuda.check(cuda.DRIVER.cuMemAlloc_v2(ctypes.byref(pointer), 64), "cuMemAlloc")
seen = []
callback = cuda.HOST_FN(lambda user_data: seen.append(pointer.value))
cuda.launch_host_func(stream, callback)
cuda.synchronize(stream)
cuda.check(cuda.DRIVER.cuMemFree_v2(ctypes.c_uint64(pointer.value)), "cuMemFree")
assert seen == [pointer.value], seen
print("the host function used memory allocated before it")
