# gilsan: expect = pass
# gilsan: implementations = reference
# gilsan: capabilities = stream-launch, borrowed-stream
# gilsan: timeout = 30
# gilsan: description = a primary context reset while host functions wait behind device work: they run first, and nothing is kept
"""A program resets the device's primary context (cuDevicePrimaryCtxReset, the driver API's device reset)
while host functions launched with host_launch wait behind 300 ms of device work on a stream of that
context. Measured on the H200 (580.159.04): the reset waits for the work and runs every queued host
function before it returns, so none is lost and each callable and argument is released. The simulated
driver does the same. The stream's handle is not used after the reset: the H200 answered a query of it
with 201, 709, or a SIGSEGV, from one run to the next. The reset waits like cuCtxDestroy, so a caller
holding the GIL would deadlock with a Python host function: the call is made here without it
(ctypes.CDLL)."""
import functools
import gc
import weakref

import gilsan_impl
from gilsan_impl.program import Driver

QUEUED = 8


class Argument:
    pass


def record(argument):
    ran.append(type(argument).__name__)  # not the argument itself: it must be free to go


impl = gilsan_impl.current()
driver = Driver()
driver.make_context_current()
handle = driver.new_stream()
stream = impl.borrow_stream(handle)  # borrowed: the implementation never destroys it
ran, alive = [], []
impl.busy(stream, 300)
for index in range(QUEUED):
    host_function, argument = functools.partial(record), Argument()
    alive += [weakref.ref(host_function), weakref.ref(argument)]
    impl.launch(stream, host_function, argument)
del host_function, argument, stream

driver.reset_primary_context()
assert len(ran) == QUEUED, f"{len(ran)} of {QUEUED} host functions had run when the reset returned"
gc.collect()
left = sum(ref() is not None for ref in alive)
assert left == 0, f"{left} of {2 * QUEUED} callables and arguments still alive after the reset"
print(f"the reset ran all {QUEUED} queued host functions first; nothing kept")
