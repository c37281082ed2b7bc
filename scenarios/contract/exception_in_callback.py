# gilsan: expect = unraisable:ValueError
# gilsan: drivers = sim, real
# gilsan: timeout = 30
# gilsan: description = an exception in a host function goes to sys.unraisablehook and the stream continues
"""A Python exception cannot cross into the driver.

The first host function raises ValueError: the module reports it through sys.unraisablehook with a
message naming host_launch and the callable ("Exception ignored in gilsan.host_launch host function:
<function fails ...>"). The work and the host function after it still run, and the scenario ends
normally, so its outcome is the unraisable exception.
"""
import gilsan

stream = gilsan.Stream()
after = []


def fails():
    raise ValueError("raised inside a host function")


stream.work(20)
gilsan.host_launch(stream, fails)
stream.work(20)
gilsan.host_launch(stream, after.append, "later work ran")
stream.synchronize()

assert after == ["later work ran"], after
assert gilsan._stats()["host_functions_raised"] == 1
