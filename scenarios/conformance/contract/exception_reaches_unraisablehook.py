# gilsan: expect = unraisable:ValueError
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 30
# gilsan: description = an exception raised by a host function goes to sys.unraisablehook; the stream carries on
"""Exceptions: an exception cannot cross into the driver, so it must be reported, not lost, and the stream
must carry on.

The first host function raises ValueError. A conforming implementation hands it to sys.unraisablehook
(where the runner sees it: the outcome is unraisable:ValueError) and returns to the driver normally, so
the device work and the host function after it still run and synchronize succeeds.

Why it matters: an implementation that lets the exception escape its trampoline corrupts the driver's
thread; one that swallows it hides the bug; one that leaves the stream in an error state stalls
everything behind it.
"""
import gilsan_impl

impl = gilsan_impl.current()
stream = impl.new_stream()
after = []


def fails():
    raise ValueError("raised inside a host function")


impl.busy(stream, 20)
impl.launch(stream, fails)
impl.busy(stream, 20)
impl.launch(stream, after.append, "later work ran")
impl.synchronize(stream)
assert after == ["later work ran"], after
