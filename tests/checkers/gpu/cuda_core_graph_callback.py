"""A cuda.core graph whose host callback (GraphBuilder.callback, captured as a host node) takes the
GIL, launched and finished; then a GIL-holding cuCtxSynchronize through ctypes.PyDLL.

The captured node's stream is unknown to the injected library (a graph runs it on whatever stream it
is launched on), but its context is known, and cuCtxSynchronize waits for the whole context: the run
must report lock-order-cycle (gil-driver-inversion).
"""
import ctypes
import threading

try:
    from cuda.core import Device
except ImportError:  # older cuda.core releases
    from cuda.core.experimental import Device

device = Device()
device.set_current()
stream = device.create_stream()
ran = threading.Event()


def in_graph():
    ran.set()


builder = stream.create_graph_builder()
builder.begin_building()
builder.callback(in_graph)
graph = builder.end_building().complete()
graph.launch(stream)
stream.sync()
if not ran.is_set():
    raise SystemExit("the graph's host callback did not run")

libcuda = ctypes.PyDLL("libcuda.so.1")
result = libcuda.cuCtxSynchronize()
print(f"cuCtxSynchronize with the GIL held returned {result}")
