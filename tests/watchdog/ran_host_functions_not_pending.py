# gilsan: expect = deadlock:user-lock-inversion
# gilsan: drivers = sim, real
# gilsan: timeout = 120
# gilsan: description = host functions that ran are not pending in the hang report
"""20,000 native host functions, each on an idle stream and waited for, then a hang.

On an idle stream the driver's callback thread may start a host function before cuLaunchHostFunc
returns. A driver of gilsan's that put it on the board as pending only after the launch returned
left it there for good when its start came first: the hang report then listed host functions that
had long run (2 to 10 of them in four runs of this file). The board has nothing pending at the hang.
"""
import ctypes
import threading

import gilsan

native = gilsan.native_test_functions()
stream = gilsan.Stream()
counter = ctypes.c_uint64(0)
for _ in range(20000):
    gilsan.host_launch(stream, native["increment_u64"], user_data=ctypes.addressof(counter))
    stream.synchronize()
assert counter.value == 20000, counter.value

# The hang the watchdog reports: the main thread waits for a lock it holds.
lock = threading.Lock()
lock.acquire()
lock.acquire()
