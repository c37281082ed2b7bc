# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 30
# gilsan: description = the twin of gil_held_first_kernel_use: the kernel is loaded (warmed up) before host functions run
"""The fix for gil_held_first_kernel_use.py: warm up. The kernel's function is fetched (and the kernel
loaded) before any host function is in flight; while the host function runs, the program launches the
kernel on a stream of its own, still holding the GIL, and that launch is not held back (profile:
while_host_function_runs.cuLaunchKernel = returns).
"""
import gilsan_impl
from gilsan_impl.program import Driver, napping_host_function

impl = gilsan_impl.current()
stream = impl.warm_stream()
released, held = Driver(), Driver(hold_gil=True)
released.make_context_current()
library = released.load_library()
function = released.kernel_function(library)
other = released.new_stream()
started, naps = napping_host_function()
impl.launch(stream, naps)
started.wait()
held.launch_kernel(function, other)
impl.synchronize(stream)
released.stream_synchronize(other)
released.destroy_stream(other)
released.unload_library(library)
