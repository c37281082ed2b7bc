# gilsan: expect = pass
# gilsan: drivers = sim, real
# gilsan: timeout = 20
# gilsan: description = the fix of lost_at_exit.py: the stream is synchronized before the interpreter exits
"""The twin of `lost_at_exit.py` with the fix applied: every host function runs while Python can."""
import _libcuda as cuda

cuda.init()
stream = cuda.new_stream()
ran = []
callback = cuda.HOST_FN(lambda user_data: ran.append(True))
cuda.busy(stream, 300)
cuda.launch_host_func(stream, callback)
cuda.synchronize(stream)
assert ran == [True], ran
print("the host function ran before exit")
