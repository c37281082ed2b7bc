# gilsan: expect = deadlock:gil-driver-inversion
# gilsan: drivers = sim, real
# gilsan: timeout = 20
# gilsan: description = a ctypes Python host function waits for the GIL held by a ctypes.PyDLL cuStreamSynchronize
"""The GIL / driver inversion with no gilsan trampoline in it (numba-cuda #317's mechanism).

The host function is a ctypes CFUNCTYPE wrapping a Python function, passed straight to cuLaunchHostFunc:
ctypes takes the GIL to run it. The main thread synchronizes the stream through ctypes.PyDLL, which keeps
the GIL across the call. Device work keeps the host function pending until the main thread is inside the
synchronize. The watchdog must name the cycle from what the driver reports (the forwarding driver on the
GPU), not from the module. The fix: `gil_released_synchronize.py`.
"""
import _libcuda as cuda

cuda.init()
stream = cuda.new_stream()
callback = cuda.HOST_FN(lambda user_data: print("unreachable: the main thread holds the GIL"))
cuda.busy(stream, 200)
cuda.launch_host_func(stream, callback)
cuda.synchronize(stream, cuda.DRIVER_KEEPING_GIL)
print("not reached")
