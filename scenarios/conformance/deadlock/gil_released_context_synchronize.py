# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 30
# gilsan: description = the twin of gil_held_context_synchronize: the context wait releases the GIL
"""The fix for gil_held_context_synchronize.py: cuCtxSynchronize with the GIL released."""
import gilsan_impl
from gilsan_impl.program import Driver

impl = gilsan_impl.current()
stream = impl.warm_stream()
driver = Driver()
driver.make_context_current()
ran = []
impl.busy(stream, 200)
impl.launch(stream, ran.append, "ran")
driver.context_synchronize()
assert ran == ["ran"], ran
