# gilsan: expect = report:host-function-lost-at-exit
# gilsan: drivers = real
# gilsan: needs = cupy
# gilsan: timeout = 60
# gilsan: description = a CuPy host callback still pending when the interpreter exits never runs
"""A peer's callback silently lost at exit.

A CuPy launch_host_func callback waits behind long device work, and the program ends without
synchronizing. The interpreter finishes first: the callback never runs, and neither CuPy nor the
driver says so. The sanitizer reports it (host-function-lost-at-exit) with where it was enqueued. Real
driver only (CuPy's runtime cannot run on the simulated driver); scenarios/ctypes/lost_at_exit.py is the
same on both. The fix: cupy_synchronized_before_exit.py.
"""
import cupy

import gilsan

stream = cupy.cuda.Stream(non_blocking=True)
gilsan.Stream.from_handle(stream.ptr).work(3000)
stream.launch_host_func(lambda _: print("this callback ran"), None)
print("leaving with a CuPy callback pending", flush=True)
