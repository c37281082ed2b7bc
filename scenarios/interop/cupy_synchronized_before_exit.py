# gilsan: expect = pass
# gilsan: drivers = real
# gilsan: needs = cupy
# gilsan: timeout = 60
# gilsan: description = the fix of cupy_lost_at_exit.py: the stream is synchronized before exit
"""The twin of `cupy_lost_at_exit.py` with the fix applied: the callback runs while Python can."""
import cupy

import gilsan

stream = cupy.cuda.Stream(non_blocking=True)
gilsan.Stream.from_handle(stream.ptr).work(300)
ran = []
stream.launch_host_func(lambda _: ran.append(True), None)
stream.synchronize()
assert ran == [True], ran
print("the callback ran before exit")
