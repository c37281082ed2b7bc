# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = native-function
# gilsan: suppressions = lmcache_2952_native_recorder.supp
# gilsan: timeout = 30
# gilsan: description = the twin of lmcache_2952_event_bus: a native recorder, drained from Python, needs no GIL
"""The fix LMCache PR #2952 made: record progress with a native host function (a counter the driver's
thread increments without the GIL) and drain it from Python. The main thread can then wait in the driver
even with the GIL held, and nothing hangs.
"""
import ctypes
import threading

import gilsan
import gilsan_impl

impl = gilsan_impl.current()
stream = impl.new_stream()
increment = gilsan.native_test_functions()["increment_u64"]
finished_transfers = ctypes.c_uint64(0)
# Warm up with a native launch too (a Python one would put a Python host function on the stream).
impl.launch_native(stream, increment, ctypes.addressof(finished_transfers))
impl.synchronize(stream)
finished_transfers.value = 0
launched = threading.Event()


def worker():
    for _ in range(4):
        impl.busy(stream, 50)
        impl.launch_native(stream, increment, ctypes.addressof(finished_transfers))
    launched.set()


threading.Thread(target=worker, daemon=True).start()
launched.wait()
impl.synchronize_holding_gil(stream)
assert finished_transfers.value == 4, finished_transfers.value
