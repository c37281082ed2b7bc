# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 30
# gilsan: description = a host function starts only once the device work enqueued before it has finished
"""Ordering against device work: the host function enqueued behind 300 ms of device work starts after it.

Why it matters: the point of a host function is to act on results the device produced before it (copy
them out, signal a waiter) without synchronizing. An implementation that runs the callable at enqueue
time, or on a thread of its own that does not wait for the stream, hands the program unfinished data.
"""
import time

import gilsan_impl

impl = gilsan_impl.current()
stream = impl.warm_stream()
started = time.monotonic()
ran_at = []
impl.busy(stream, 300)
impl.launch(stream, lambda: ran_at.append(time.monotonic()))
impl.synchronize(stream)
assert len(ran_at) == 1, ran_at
waited = ran_at[0] - started
assert waited >= 0.25, f"the host function ran {waited:.3f} s after 300 ms of device work was enqueued"
print(f"{impl.name}: ran {waited:.2f} s after the device work was enqueued")
