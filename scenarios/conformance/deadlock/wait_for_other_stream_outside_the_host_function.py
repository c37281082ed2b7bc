# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 30
# gilsan: description = the twin of callback_waits_for_other_stream: the launching thread waits for both streams
"""The fix for callback_waits_for_other_stream.py: no host function waits; the launching thread waits for
s2 and then s1."""
import gilsan_impl

impl = gilsan_impl.current()
s1 = impl.warm_stream()
s2 = impl.warm_stream()
ran = []
impl.busy(s2, 100)
impl.launch(s2, ran.append, "second")
impl.launch(s1, ran.append, "first")
impl.synchronize(s2)
impl.synchronize(s1)
assert sorted(ran) == ["first", "second"], ran
