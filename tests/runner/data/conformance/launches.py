# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: description = a conformance scenario every implementation with stream-launch passes
import gilsan_impl

impl = gilsan_impl.current()
stream = impl.new_stream()
ran = []
impl.launch(stream, ran.append, 1)
impl.synchronize(stream)
assert ran == [1], ran
print("launched with", impl.name)
