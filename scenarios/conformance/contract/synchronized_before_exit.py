# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 30
# gilsan: description = the twin of finalization_pending: synchronizing before exit runs the host function, nothing is lost
"""The fix for finalization_pending.py: synchronize the stream before the program ends. The host function
runs while the interpreter is alive, and nothing is reported at exit.
"""
import gilsan_impl

impl = gilsan_impl.current()
stream = impl.new_stream()
ran = []
impl.busy(stream, 300)
impl.launch(stream, ran.append, "ran before exit")
impl.synchronize(stream)
assert ran == ["ran before exit"], ran
print(f"{impl.name}: synchronized before exit")
