# gilsan: expect = deadlock:gil-driver-inversion
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 3
# gilsan: description = the program frees device memory holding the GIL while a Python host function runs
"""GIL-held cuMemFree while a Python host function runs: the driver holds cuMemFree back until the running
host function returns (measured on the H200, driver 580.159.04: profile while_host_function_runs.cuMemFree
= blocks). The host function sleeps (releasing the GIL), the main thread takes the GIL and frees memory
without releasing it; when the host function wakes up it needs the GIL back to return. Main -> driver
(host function running) -> callback thread -> GIL -> main.

Why it matters: the callback makes no CUDA call and the freed memory has nothing to do with it, which is
what makes this one hard to believe (AMReX PR #4044 met the driver half of it). The twin,
gil_released_free.py, frees with the GIL released.
"""
import gilsan_impl
from gilsan_impl.program import Driver, napping_host_function

impl = gilsan_impl.current()
stream = impl.warm_stream()
released, held = Driver(), Driver(hold_gil=True)
released.make_context_current()
memory = released.allocate(1 << 20)
started, naps = napping_host_function()
impl.launch(stream, naps)
started.wait()
held.free(memory)
print("not reached")
