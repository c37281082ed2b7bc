# gilsan: expect = deadlock:callback-self-wait
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 3
# gilsan: description = a host function synchronizes its own stream, through the implementation
"""A host function that waits for its own stream: the stream cannot complete until the host function
returns, and the host function waits for the stream. The driver API hangs here (measured on the H200:
cuStreamSynchronize on the host function's own stream never returns); the watchdog calls it
callback-self-wait. The wait is the implementation's own synchronize, as a user would write it.

Why it matters: "make sure the data is there" inside a callback is a natural thing to write, and a
binding cannot tell it apart from a legitimate wait. The twin, synchronize_after_the_host_function.py,
moves the wait to the thread that launched it.
"""
import gilsan_impl

impl = gilsan_impl.current()
stream = impl.warm_stream()
impl.busy(stream, 50)
impl.launch(stream, lambda: impl.synchronize(stream))
impl.synchronize(stream)
print("not reached")
