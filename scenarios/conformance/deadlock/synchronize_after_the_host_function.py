# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 30
# gilsan: description = the twin of callback_synchronizes_own_stream: the launching thread waits instead
"""The fix for callback_synchronizes_own_stream.py: the host function only records that it ran; the
thread that launched it does the waiting."""
import gilsan_impl

impl = gilsan_impl.current()
stream = impl.warm_stream()
ran = []
impl.busy(stream, 50)
impl.launch(stream, ran.append, "ran")
impl.synchronize(stream)
assert ran == ["ran"], ran
