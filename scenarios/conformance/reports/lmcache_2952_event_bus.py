# gilsan: expect = deadlock:gil-driver-inversion
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 3
# gilsan: description = LMCache #2952: an event bus records progress with Python host functions while another thread waits in the driver holding the GIL
"""Reproduces LMCache PR #2952 ("Fix deadlock caused by cuda launch host func").

The mechanism: an event bus recorded the progress of transfers with Python host functions (CuPy's
launch_host_func) on a worker's stream; the callback needs the GIL while another thread holds the GIL
and waits in the driver. Here a worker thread launches "transfer finished" recorders behind device work,
and the main thread, holding the GIL, waits for the worker's stream in the driver.

The twin, lmcache_2952_native_recorder.py, is the fix LMCache shipped: a native recorder.
"""
import threading

import gilsan_impl

impl = gilsan_impl.current()
stream = impl.warm_stream()
events = []
launched = threading.Event()


def worker():
    for transfer in range(4):
        impl.busy(stream, 50)
        impl.launch(stream, events.append, ("transfer finished", transfer))
    launched.set()


threading.Thread(target=worker, daemon=True).start()
launched.wait()
impl.synchronize_holding_gil(stream)
print("not reached")
