# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 30
# gilsan: description = a stream the implementation owns is let go with a host function still pending; it still runs
"""A stream released with work pending: the program launches a host function behind device work and lets
go of the stream (closes it, or drops the last reference) at once. The driver completes work pending on a
destroyed stream (cuStreamDestroy returns immediately and the work still runs), so the host function must
still run, with its callable alive, and the context then synchronizes cleanly.

Why it matters: "fire and forget" on a temporary stream is common. An implementation that frees the
callables it holds for a stream when the stream object dies runs freed memory when the driver gets there.
"""
import threading

import gilsan_impl
from gilsan_impl.program import Driver

impl = gilsan_impl.current()
stream = impl.new_stream()
ran = threading.Event()
impl.busy(stream, 200)
impl.launch(stream, ran.set)
impl.release_stream(stream)
del stream
Driver().context_synchronize()
assert ran.wait(10), "the host function did not run after its stream was released"
print(f"{impl.name}: the host function ran after its stream was let go")
