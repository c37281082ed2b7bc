# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 30
# gilsan: module_loading = lazy
# gilsan: description = gil_held_library_unload_eager under the default lazy loading: the unload returns while the host function runs
"""The lazy-loading side of gil_held_library_unload_eager.py: a library none of whose kernels was used
in the context has nothing loaded there, and its cuLibraryUnload returns while a host function runs
(profile: while_host_function_runs.cuLibraryUnload = returns, measured on the H200), even with the GIL
held. The run completes and the sanitizer, reading the LAZY call table, reports nothing.
"""
import gilsan_impl
from gilsan_impl.program import Driver, napping_host_function

impl = gilsan_impl.current()
stream = impl.warm_stream()
released, held = Driver(), Driver(hold_gil=True)
released.make_context_current()
library = released.load_library()
started, naps = napping_host_function()
impl.launch(stream, naps)
started.wait()
held.unload_library(library)
impl.synchronize(stream)
