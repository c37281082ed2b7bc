# gilsan: expect = deadlock:callback-driver-lock
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 3
# gilsan: description = AMReX #4044: host callbacks "do not work well with cudaFree in the main host thread"
"""Reproduces AMReX PR #4044: host callbacks "do not work well with cudaFree in the main host thread",
although the callbacks made no CUDA calls; a single stream, or cudaMalloc instead, worked.

The driver half, measured on the H200 (driver 580.159.04): cuMemFree from another thread is held back
while a host function runs (cuMemAlloc is not). So a host function that waits for anything the freeing
thread does after the free never gets it: here the host function waits for the main thread's "go", and
the main thread frees device memory first. Main -> driver (host function running) -> callback thread ->
main. The GIL plays no part: the main thread's free releases it.

The twin, amrex_4044_free_after_callback.py, frees after the host function has been released.
"""
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
driver.free(memory)
go.set()
impl.synchronize(stream)
print("not reached")
