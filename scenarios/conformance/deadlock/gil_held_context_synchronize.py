# gilsan: expect = deadlock:gil-driver-inversion
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 3
# gilsan: description = the program synchronizes the whole context holding the GIL while a Python host function waits for it
"""GIL-held context synchronize: cuCtxSynchronize waits for every stream of the context, including the one
with a pending Python host function, and the GIL stays held: main -> context -> stream -> callback
thread -> GIL -> main. No stream of the program's own is involved, so a library's callback on its
private stream is enough to hang a program that "just synchronizes".

The twin, gil_released_context_synchronize.py, is the fix.
"""
import gilsan_impl
from gilsan_impl.program import Driver

impl = gilsan_impl.current()
stream = impl.warm_stream()
driver = Driver(hold_gil=True)
driver.make_context_current()
impl.busy(stream, 200)
impl.launch(stream, print, "not reached: the main thread holds the GIL")
driver.context_synchronize()
print("not reached")
