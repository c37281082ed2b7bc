# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 30
# gilsan: description = positional and keyword arguments reach the callable unchanged, by identity
"""Arguments: fn(*args, **kwargs) is called with the very objects given at launch.

Why it matters: a host_launch that copies, converts or drops arguments (or binds them late, so a
variable changed after the launch is what the callable sees) breaks callers silently. The objects are
compared by identity, and the caller rebinds its own names right after the launch.
"""
import gilsan_impl

impl = gilsan_impl.current()
stream = impl.new_stream()
received = []


def record(*args, **kwargs):
    received.append((args, kwargs))


payload = {"rows": [1, 2, 3]}
marker = object()
impl.busy(stream, 50)
impl.launch(stream, record, payload, "text", 7, flag=True, marker=marker)
payload, marker_seen = None, marker
marker = None
impl.launch(stream, record)
impl.synchronize(stream)

assert len(received) == 2, received
args, kwargs = received[0]
assert args[0] == {"rows": [1, 2, 3]} and args[1:] == ("text", 7), args
assert kwargs["flag"] is True and kwargs["marker"] is marker_seen, kwargs
assert received[1] == ((), {}), received[1]
print(f"{impl.name}: arguments arrived unchanged")
