"""cuda.core's explicit graphs with host callback nodes: a ctypes function given user_data as a raw
pointer and as bytes (copied, owned by the graph), and a Python callable; each graph launched three
times. Behind the forwarding driver with the sanitizer on, the bytes form's program crashed at exit
(heap corruption, issue 31)."""
import ctypes

from cuda.core import Device
from cuda.core.graph import GraphDefinition

device = Device(0)
device.set_current()
stream = device.create_stream()

counter = ctypes.c_int(0)
seen_bytes = []


@ctypes.CFUNCTYPE(None, ctypes.c_void_p)
def bump(data):
    ctypes.cast(data, ctypes.POINTER(ctypes.c_int))[0] += 1


@ctypes.CFUNCTYPE(None, ctypes.c_void_p)
def read_bytes(data):
    seen_bytes.append(ctypes.string_at(data, 4))


calls = []
definition = GraphDefinition()
first = definition.callback(bump, user_data=ctypes.addressof(counter))
second = first.join().callback(read_bytes, user_data=b"abcd")
second.join().callback(lambda: calls.append(counter.value))
graph = definition.instantiate()
for _ in range(3):
    graph.launch(stream)
stream.sync()
assert counter.value == 3, counter.value
assert seen_bytes == [b"abcd"] * 3, seen_bytes
assert calls == [1, 2, 3], calls
graph.close()
print("ran", counter.value, "native,", len(seen_bytes), "bytes and", len(calls), "Python host nodes")
