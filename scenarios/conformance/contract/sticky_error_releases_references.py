# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 30
# gilsan: description = after a device fault makes the context's error sticky, the queued host functions never run and the implementation still lets go of them
"""A context with a sticky error: device work faults (a store to an unmapped address) while host functions
wait behind it on the same stream. From then on every call on the context returns the error and the driver
never runs what is queued: the implementation's synchronize must raise, no host function may run, and the
implementation must still let go of every callable and argument it took at launch.

Why it matters: a host_launch that holds its references until the driver calls back never gets that call
after a fault; each pending callable, and everything it closes over (buffers, a whole model), stays alive
until the process ends. Error-handling code that catches the fault and carries on (a server that reports
one bad request and serves the next on a new context) leaks that much per fault.
"""
import functools
import gc
import time
import weakref

import gilsan_impl
from gilsan_impl.program import Driver

QUEUED = 20


class Argument:
    """What a host function would have been given."""


impl = gilsan_impl.current()
stream = impl.new_stream()
# The host functions are enqueued while device work keeps the stream busy, so that they are queued
# behind the fault before it happens (an enqueue after it would only return the error).
impl.busy(stream, 300)
Driver().fault(stream.handle)
ran = []
alive = []
for _ in range(QUEUED):
    # A callable of its own per launch, so that each release shows.
    host_function, argument = functools.partial(ran.append), Argument()
    alive += [weakref.ref(host_function), weakref.ref(argument)]
    impl.launch(stream, host_function, argument)
del host_function, argument

try:
    impl.synchronize(stream)
except Exception as error:  # each implementation raises its own error type
    print(f"{impl.name}: synchronize raised {type(error).__name__}: {error}")
else:
    raise AssertionError("synchronize returned normally after the stream's device work faulted")
time.sleep(0.5)  # a host function the driver did run after all would have run by now
assert not ran, f"{len(ran)} of {QUEUED} host functions ran after the fault"

# Two seconds: a poll with nothing else happening looks like a hang to the watchdog after ten quiet
# periods (5 s by default, docs/watchdog.md), and a failing implementation must fail here, not there.
deadline = time.monotonic() + 2
while any(ref() is not None for ref in alive) and time.monotonic() < deadline:
    gc.collect()
    time.sleep(0.02)
left = sum(ref() is not None for ref in alive)
assert left == 0, f"{left} of {2 * QUEUED} callables and arguments were still alive 2 s after the sticky error"
print(f"{impl.name}: no host function ran after the fault, and every callable and argument was released")
