# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 30
# gilsan: description = the twin of numba_cuda_317_parallel_tasks: the context wait releases the GIL
"""The fix for numba_cuda_317_parallel_tasks.py (numba-cuda #317): wait with the GIL released, and every
callback of every stream runs."""
import gilsan_impl
from gilsan_impl.program import Driver

impl = gilsan_impl.current()
streams = [impl.warm_stream() for _ in range(3)]
done = []
for index, stream in enumerate(streams):
    impl.busy(stream, 100 + 50 * index)
    impl.launch(stream, done.append, index)
driver = Driver()
driver.make_context_current()
driver.context_synchronize()
assert sorted(done) == [0, 1, 2], done
