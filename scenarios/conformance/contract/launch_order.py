# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 30
# gilsan: description = host functions run in stream order, after the device work before them
"""Ordering: a host function runs after everything enqueued before it on its stream, and host
functions of one stream run in the order they were launched.

Why it matters: host_launch exists to order host work against device work without a synchronize; an
implementation that runs the callable early (or out of order) breaks every program built on it.
"""
import gilsan_impl

impl = gilsan_impl.current()
stream = impl.new_stream()
seen = []
impl.busy(stream, 100)
for index in range(5):
    impl.launch(stream, seen.append, index)
impl.synchronize(stream)
assert seen == [0, 1, 2, 3, 4], seen
print(impl.name, "ran the host functions in order:", seen)
