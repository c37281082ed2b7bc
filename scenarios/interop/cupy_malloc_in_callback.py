# gilsan: expect = report:cuda-call-in-host-function
# gilsan: drivers = real
# gilsan: needs = cupy
# gilsan: timeout = 60
# gilsan: description = a CuPy host callback calls cupy.cuda.runtime.malloc inside the callback
"""A peer's host callback that calls CUDA.

CuPy's Stream.launch_host_func runs the callback on the driver's callback thread; the callback calls
cupy.cuda.runtime.malloc (cudaMalloc), which CUDA forbids there (the H200's driver refuses it). CuPy
links the CUDA runtime, which reaches the driver through cuGetProcAddress: the forwarding driver in
front of the real one sees the runtime's driver calls made inside the host function and reports them
(cuda-call-in-host-function). Real driver only: the CUDA runtime needs the driver's private export
tables (cuGetExportTable), which the simulated driver cannot provide; scenarios/ctypes/callback_calls_driver.py
is the same mechanism on both drivers. The fix: cupy_allocate_before_callback.py.
"""
import cupy

stream = cupy.cuda.Stream(non_blocking=True)
answers = []


def allocate(_):
    try:
        pointer = cupy.cuda.runtime.malloc(64)
        answers.append("allocated")
        cupy.cuda.runtime.free(pointer)
    except cupy.cuda.runtime.CUDARuntimeError as error:
        answers.append(str(error))


stream.launch_host_func(allocate, None)
stream.synchronize()
print("the runtime answered:", answers)
