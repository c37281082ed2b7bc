# gilsan: expect = deadlock:gil-driver-inversion
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 3
# gilsan: description = the program unloads a module holding the GIL while a Python host function runs
"""GIL-held cuModuleUnload while a Python host function runs: module unload is held back while a host
function of the context runs (profile: while_host_function_runs.cuModuleUnload = blocks, measured on the
H200). The host function naps with the GIL released, the main thread unloads a module keeping the GIL,
and the host function cannot get the GIL back to return.

Why it matters: modules are unloaded from finalizers and __del__ (a JIT cache evicting a kernel), at
moments the program does not choose. The twin, gil_released_module_unload.py, is the fix.
"""
import gilsan_impl
from gilsan_impl.program import Driver, napping_host_function

impl = gilsan_impl.current()
stream = impl.warm_stream()
released, held = Driver(), Driver(hold_gil=True)
released.make_context_current()
module = released.load_module()
started, naps = napping_host_function()
impl.launch(stream, naps)
started.wait()
held.unload_module(module)
print("not reached")
