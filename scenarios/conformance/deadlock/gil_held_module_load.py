# gilsan: expect = deadlock:gil-driver-inversion
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 3
# gilsan: module_loading = lazy
# gilsan: description = the program loads (JIT-compiles) a module holding the GIL while a Python host function runs
"""GIL-held cuModuleLoadData while a Python host function runs: loading a module (here PTX, compiled by
the driver) is held back while a host function of the context runs (profile:
enqueued_work_while_host_function_runs.lazy.cuModuleLoadData = call-blocks, measured on the H200; the
same under EAGER: gil_held_module_load_eager.py). The host function naps with
the GIL released; the main thread loads a module keeping the GIL; the host function cannot return.

Why it matters: JIT compilers (numba, CuPy's RawKernel, Triton) load modules on first call, from Python,
often inside a C extension that holds the GIL. The twin, gil_released_module_load.py, is the fix.
"""
import gilsan_impl
from gilsan_impl.program import Driver, napping_host_function

impl = gilsan_impl.current()
stream = impl.warm_stream()
held = Driver(hold_gil=True)
held.make_context_current()
started, naps = napping_host_function()
impl.launch(stream, naps)
started.wait()
held.load_module()
print("not reached")
