# gilsan: expect = report:cuda-call-in-host-function
# gilsan: drivers = sim, real
# gilsan: timeout = 20
# gilsan: description = a ctypes Python host function calls cuMemAlloc through ctypes
"""A host function that calls the driver itself, with no gilsan module in the call.

CUDA forbids host functions to call CUDA; the H200's driver refuses cuMemAlloc there with
CUDA_ERROR_NOT_PERMITTED. The call goes straight from ctypes into libcuda.so.1, so only a source that
sees every driver call of the process can report it: the simulated driver's observer, or the
forwarding driver's on the GPU. The fix allocates before launching: `allocate_before_launch.py`.
"""
import ctypes

import _libcuda as cuda

cuda.init()
stream = cuda.new_stream()
results = []


def allocate(user_data):
    pointer = ctypes.c_uint64()
    results.append(cuda.DRIVER.cuMemAlloc_v2(ctypes.byref(pointer), 64))


callback = cuda.HOST_FN(allocate)
cuda.launch_host_func(stream, callback)
cuda.synchronize(stream)
print("the driver answered:", results)
