# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 30
# gilsan: description = the twin of amrex_4044_free_during_callback: signal the host function first, then free
"""The fix for amrex_4044_free_during_callback.py: let the host function finish (send "go") before the
free; the free still waits for it, and then completes."""
import threading

import gilsan_impl
from gilsan_impl.program import Driver

impl = gilsan_impl.current()
stream = impl.warm_stream()
driver = Driver()
driver.make_context_current()
memory = driver.allocate(1 << 20)
started, go = threading.Event(), threading.Event()


def waits_for_the_main_thread():
    started.set()
    go.wait()


impl.launch(stream, waits_for_the_main_thread)
started.wait()
go.set()
driver.free(memory)
impl.synchronize(stream)
