# gilsan: expect = pass
# gilsan: drivers = sim, real
# gilsan: timeout = 20
# gilsan: description = the fix of stream_callback_deadlock.py: the synchronize releases the GIL
"""The twin of `stream_callback_deadlock.py` with the fix applied: the stream callback gets the GIL."""
import ctypes

import _libcuda as cuda

cuda.init()
stream = cuda.new_stream()
statuses = []
callback = cuda.STREAM_CALLBACK(lambda stream, status, user_data: statuses.append(status))
cuda.busy(stream, 200)
cuda.check(cuda.DRIVER.cuStreamAddCallback(ctypes.c_void_p(stream), callback, None, 0), "cuStreamAddCallback")
cuda.synchronize(stream, cuda.DRIVER)
assert statuses == [0], statuses
print("the stream callback ran with status", statuses[0])
