# gilsan: expect = deadlock:callback-driver-lock
# gilsan: drivers = sim, real
# gilsan: timeout = 3
# gilsan: description = a host function waits for the main thread, which the driver holds back in cuMemFree
"""A host function needs a thread that the driver blocks because a host function is running.

The host function tells the main thread it started, then waits for the main thread's "go". The main
thread first frees device memory: cuMemFree is held back while a host function of the context runs
(profile: while_host_function_runs.cuMemFree = blocks, measured on the real driver), so the "go" never
comes. The main thread waits for the driver's host-function lock; the host function waits for the main
thread.
"""
import threading

import gilsan

stream = gilsan.Stream()
buffer = gilsan.DeviceBuffer(1 << 20)
started = threading.Event()
go = threading.Event()


def needs_the_main_thread():
    started.set()
    go.wait()


gilsan.host_launch(stream, needs_the_main_thread)
started.wait()
buffer.free()
go.set()
stream.synchronize()
print("not reached")
