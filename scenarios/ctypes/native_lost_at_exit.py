# gilsan: expect = report:host-function-lost-at-exit
# gilsan: drivers = sim, real
# gilsan: timeout = 30
# gilsan: description = a native host function (a function pointer through ctypes) still waiting behind device work when the process ends
"""A native host function needs no interpreter, so it may still run after Python finished: the runner
waits 5 s for what the driver holds, as a process's own exit might. This one waits behind 8 s of device
work, so the process ends first and it never runs: host-function-lost-at-exit, "the process ended
first". The fix is the same as for a Python host function: synchronize before exit
(synchronized_before_exit.py).
"""
import ctypes

import _libcuda as cuda

libc = ctypes.CDLL(None)
cuda.init()
stream = cuda.new_stream()
cuda.busy(stream, 8000)
cuda.check(cuda.DRIVER.cuLaunchHostFunc(ctypes.c_void_p(stream), ctypes.cast(libc.free, ctypes.c_void_p), None),
           "cuLaunchHostFunc")
print("leaving with a native host function pending", flush=True)
