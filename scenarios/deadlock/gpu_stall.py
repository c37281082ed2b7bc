# gilsan: expect = deadlock:gpu-stall
# gilsan: drivers = sim
# gilsan: timeout = 3
# gilsan: description = a stream's device work never completes; the host only waits for it
"""No host-side cycle: device work does not complete.

The simulated driver is asked directly (gilsanSimLaunchWork, through ctypes) for an hour of device
work on the stream, which nobody declares to the watchdog -- like a kernel spinning on a flag that is
never set. The main thread synchronizes the stream with the GIL released. Nothing on the host holds
anything up: the wait chain ends at the stream.

Sim only: gilsan's only device work on the real driver is stream.work(ms), whose duration the module
declares (a declared duration is progress, not a stall), and it has no kernel that waits forever.
"""
import ctypes

import gilsan

stream = gilsan.Stream()
sim = ctypes.CDLL(gilsan.driver().library)  # the simulated driver the module already loaded
sim.gilsanSimLaunchWork.argtypes = [ctypes.c_void_p, ctypes.c_ulonglong]
sim.gilsanSimLaunchWork.restype = ctypes.c_int
ONE_HOUR_US = 3_600_000_000
result = sim.gilsanSimLaunchWork(stream.handle, ONE_HOUR_US)
assert result == 0, f"gilsanSimLaunchWork returned {result}"
stream.synchronize()
print("not reached")
