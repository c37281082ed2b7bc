# gilsan: expect = crash:SIGSEGV
# gilsan: drivers = sim, real
# gilsan: timeout = 10
# gilsan: description = a host function reads address 0; the watchdog reports the crash with its stacks
"""A crash in a host function.

The host function reads memory at address 0 through ctypes, which kills the process with SIGSEGV on
the driver's callback thread. The watchdog's crash report names the signal and the thread, with the
host function's Python frame (reads_address_zero) and native frames (gilsan's trampoline) in its stack.
"""
import ctypes

import gilsan

stream = gilsan.Stream()


def reads_address_zero():
    ctypes.string_at(0)


gilsan.host_launch(stream, reads_address_zero)
stream.synchronize()
print("not reached")
