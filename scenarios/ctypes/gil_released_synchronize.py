# gilsan: expect = pass
# gilsan: drivers = sim, real
# gilsan: timeout = 20
# gilsan: description = the fix of gil_held_synchronize_deadlock.py: the same synchronize through ctypes.CDLL
"""The twin of `gil_held_synchronize_deadlock.py` with the fix applied.

ctypes.CDLL releases the GIL around the call, so the host function gets the GIL, runs, and the stream
completes. Nothing is reported: the sanitizer sees a synchronize made without the GIL.
"""
import _libcuda as cuda

cuda.init()
stream = cuda.new_stream()
ran = []
callback = cuda.HOST_FN(lambda user_data: ran.append(True))
cuda.busy(stream, 200)
cuda.launch_host_func(stream, callback)
cuda.synchronize(stream, cuda.DRIVER)
assert ran == [True], ran
print("the host function ran")
