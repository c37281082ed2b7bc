# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 30
# gilsan: description = the twin of gil_held_stream_synchronize: the implementation's own synchronize releases the GIL
"""The fix for gil_held_stream_synchronize.py: wait with the GIL released. Here the wait is the
implementation's own synchronize, so this also checks that the implementation releases the GIL in it.
"""
import gilsan_impl

impl = gilsan_impl.current()
stream = impl.warm_stream()
ran = []
impl.busy(stream, 200)
impl.launch(stream, ran.append, "ran")
impl.synchronize(stream)
assert ran == ["ran"], ran
