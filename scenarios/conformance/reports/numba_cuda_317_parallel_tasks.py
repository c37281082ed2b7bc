# gilsan: expect = deadlock:gil-driver-inversion
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 3
# gilsan: description = numba-cuda #317: Python stream callbacks on several streams, the main thread in the driver holding the GIL
"""Reproduces numba-cuda issue #317 ("Occasional test suite deadlock in test_parallel_tasks or
test_multiple_async_done_multiple_streams"; docs in PR #321, tests skipped in #356).

The mechanism the report describes: numba's callbacks are Python functions called through ctypes, so the
driver's callback thread needs the GIL to run them; the main thread holds the GIL and calls into the
driver, which waits for a callback. It was intermittent because the callback had to be pending while the
GIL-holding call waited. Here it is made certain: callbacks are queued on three streams behind device
work, and the main thread waits for the whole context in a GIL-holding driver call.

The twin, numba_cuda_317_gil_released.py, makes the same wait with the GIL released.
"""
import gilsan_impl
from gilsan_impl.program import Driver

impl = gilsan_impl.current()
streams = [impl.warm_stream() for _ in range(3)]
done = []
for index, stream in enumerate(streams):
    impl.busy(stream, 100 + 50 * index)
    impl.launch(stream, done.append, index)
driver = Driver(hold_gil=True)
driver.make_context_current()
driver.context_synchronize()
print("not reached")
