# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 30
# gilsan: description = CuPy 527a9cb8b: the implementation's own stream waits release the GIL while callbacks need it
"""Reproduces the bug CuPy fixed in commit 527a9cb8b ("BUG: Unlock GIL in event/stream API and ensure it
in callbacks"), as a check every implementation must pass: its own waits release the GIL.

Before the fix, CuPy's stream and event waits held the GIL while callbacks needed it. Here Python host
functions are pending on two streams and the main thread waits with the implementation's own
synchronize, once per stream, from the main thread and from a second thread at once. A wait that
keeps the GIL hangs (gil-driver-inversion); a conforming one passes.
"""
import threading

import gilsan_impl

impl = gilsan_impl.current()
first, second = impl.warm_stream(), impl.warm_stream()
ran = []
for stream, name in ((first, "first"), (second, "second")):
    impl.busy(stream, 150)
    impl.launch(stream, ran.append, name)
waiter = threading.Thread(target=impl.synchronize, args=(second,))
waiter.start()
impl.synchronize(first)
waiter.join()
assert sorted(ran) == ["first", "second"], ran
