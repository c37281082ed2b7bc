# gilsan: expect = report:lock-order-cycle
# gilsan: drivers = real
# gilsan: needs = cuda.core
# gilsan: timeout = 60
# gilsan: description = a cuda.core graph's Python host callback ran; later a GIL-holding cuCtxSynchronize through ctypes.PyDLL
"""A lock-order cycle through a cuda.core graph host callback, predicted on a run that did not hang.

cuda.core's GraphBuilder.callback records a Python host callback into a graph (through stream capture);
its trampoline takes the GIL on the driver's callback thread. The graph is launched and finishes. Then the
main thread calls cuCtxSynchronize through ctypes.PyDLL, keeping the GIL: had the callback been pending,
that would have deadlocked (the GIL -> the context's completion -> the GIL). The forwarding driver sees
cuda.core's capture, the graph's launch and the callback's run, so the sanitizer predicts it. The fix:
cuda_core_callback_then_synchronize.py.
"""
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
libcuda = ctypes.PyDLL("libcuda.so.1")  # PyDLL: the call keeps the GIL
assert libcuda.cuCtxSynchronize() == 0
print("the callback ran, and the context synchronized with the GIL held")
