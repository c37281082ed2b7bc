# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = stream-launch, borrowed-stream
# gilsan: timeout = 30
# gilsan: description = host functions on a stream another library created; dropping the borrowed view leaves the stream alone
"""Borrowed streams: a stream created elsewhere (here by the program, through the driver) is handed to the
implementation by its CUstream handle. Host functions launched on it run in order, and once the
implementation's view is dropped and collected, the stream is still the program's: it synchronizes
successfully and takes more work, which a second view launches.

Why it matters: libraries pass streams to each other by handle all the time (the __cuda_stream__ protocol,
a framework's current stream). A binding that destroys a stream it does not own, when its wrapper dies,
breaks the owner with CUDA_ERROR_INVALID_HANDLE later, far from the cause.
"""
import gc

import gilsan_impl
from gilsan_impl.program import Driver

impl = gilsan_impl.current()
driver = Driver()
impl.new_stream()  # the implementation sets up its device and context first, as a program would
handle = driver.new_stream()
seen = []

borrowed = impl.borrow_stream(handle)
impl.busy(borrowed, 50)
impl.launch(borrowed, seen.append, "first view")
impl.synchronize(borrowed)
del borrowed
gc.collect()

driver.stream_synchronize(handle)  # fails (CUDA_ERROR_INVALID_HANDLE) if the view destroyed the stream
again = impl.borrow_stream(handle)
impl.launch(again, seen.append, "second view")
impl.synchronize(again)
del again
gc.collect()
driver.destroy_stream(handle)
assert seen == ["first view", "second view"], seen
print(f"{impl.name}: borrowed the stream twice and left it to its owner")
