# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = stream-launch, borrowed-stream
# gilsan: timeout = 30
# gilsan: description = a host function in one context waits for one in another context; they run side by side
"""Two contexts on one device: each context has a callback thread of its own (measured on the H200), so a
host function in the primary context can wait for one in a context the program created. The program
makes the second context and a stream in it through the driver, hands the stream to the implementation
by handle, and makes each context current around its own launches.

Why it matters: it is the other half of callback serialization. Within a context host functions are
serialized (scenarios/conformance/deadlock/callback_waits_for_other_stream.py hangs); across contexts
they are not, and an implementation must not add serialization of its own.
"""
import threading

import gilsan_impl
from gilsan_impl.program import Driver

impl = gilsan_impl.current()
driver = Driver()
primary_stream = impl.new_stream()
primary = driver.make_context_current()
created = driver.new_context()
other_handle = driver.new_stream()
driver.set_current(primary)
other_stream = impl.borrow_stream(other_handle)

signalled = threading.Event()
outcome = []
impl.launch(primary_stream, lambda: outcome.append(signalled.wait(10)))
driver.set_current(created)
impl.busy(other_stream, 50)
impl.launch(other_stream, signalled.set)
impl.synchronize(other_stream)
driver.set_current(primary)
impl.synchronize(primary_stream)
del other_stream
driver.destroy_context(created)
assert outcome == [True], "the primary context's host function never saw the other context's run"
print(f"{impl.name}: host functions of two contexts ran side by side")
