# gilsan: expect = deadlock:gil-driver-inversion
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 3
# gilsan: module_loading = lazy
# gilsan: description = a GIL-holding thread waits for a native host function on another stream while a Python host function runs
"""A native host function on another stream waits for a running Python host function: the driver runs
every host function of a context on one callback thread (profile:
enqueued_work_while_host_function_runs.lazy.cuLaunchHostFunc = work-waits, measured on the H200, the
same under EAGER). The program enqueues libc's free(NULL), which needs no GIL, on its own stream and
waits for that stream holding the GIL; the host function it waits for cannot start until the Python
host function on the other stream ends, and that one needs the GIL to end.

Why it matters: a stream that has only native work, and a host function that needs no GIL, look safe
to synchronize with the GIL held; behind the shared callback thread, they are not.
"""
import gilsan_impl
from gilsan_impl.program import Driver, napping_host_function

impl = gilsan_impl.current()
stream = impl.warm_stream()
released, held = Driver(), Driver(hold_gil=True)
released.make_context_current()
other = released.new_stream()
started, naps = napping_host_function()
impl.launch(stream, naps)
started.wait()
held.launch_native_host_function(other)
held.stream_synchronize(other)
print("not reached")
