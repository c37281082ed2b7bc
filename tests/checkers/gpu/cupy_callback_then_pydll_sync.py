"""A CuPy host callback that has finished, then a GIL-holding cuStreamSynchronize of its stream.

Nothing hangs: the callback ran before the synchronize. Under libgilsan_inject.so the order is a
potential deadlock all the same (had the callback still been pending, it would wait for the GIL the
synchronizing thread holds): the run must report lock-order-cycle (gil-driver-inversion).
"""
import ctypes
import threading

import cupy

stream = cupy.cuda.Stream(non_blocking=True)
ran = threading.Event()


def on_done(_arg):
    ran.set()


stream.launch_host_func(on_done, None)
if not ran.wait(timeout=60):
    raise SystemExit("the CuPy host callback did not run within 60 s")
stream.synchronize()  # CuPy releases the GIL here: no report expected from this one

# ctypes.PyDLL keeps the GIL across the call, unlike ctypes.CDLL.
libcuda = ctypes.PyDLL("libcuda.so.1")
libcuda.cuStreamSynchronize.argtypes = [ctypes.c_void_p]
result = libcuda.cuStreamSynchronize(ctypes.c_void_p(stream.ptr))
print(f"cuStreamSynchronize with the GIL held returned {result}")
