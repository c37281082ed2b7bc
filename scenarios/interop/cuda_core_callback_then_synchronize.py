# gilsan: expect = pass
# gilsan: drivers = real
# gilsan: needs = cuda.core
# gilsan: timeout = 60
# gilsan: description = the fix of cuda_core_callback_then_gil_held_synchronize.py: the synchronize releases the GIL
"""The twin of `cuda_core_callback_then_gil_held_synchronize.py` with the fix applied: cuCtxSynchronize
through ctypes.CDLL, which releases the GIL, so no order between the GIL and the context exists."""
import ctypes
import threading

import _cuda_core

device = _cuda_core.current_device()
stream = device.create_stream()
ran = threading.Event()
graph = _cuda_core.graph_with_callback(stream, ran.set)
graph.launch(stream)
stream.sync()
assert ran.is_set(), "the graph's host callback did not run"
assert ctypes.CDLL("libcuda.so.1").cuCtxSynchronize() == 0
print("the callback ran, and the context synchronized without the GIL")
