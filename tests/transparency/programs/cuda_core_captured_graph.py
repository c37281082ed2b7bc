"""cuda.core's stream capture (GraphBuilder) with a Python and a ctypes callback, the graph uploaded,
launched on two streams, closed while the builder lives on, and a second graph from a second capture."""
import ctypes

from cuda.core import Device

device = Device(0)
device.set_current()
stream, other = device.create_stream(), device.create_stream()
counter = ctypes.c_int(0)
order = []


@ctypes.CFUNCTYPE(None, ctypes.c_void_p)
def bump(data):
    ctypes.cast(data, ctypes.POINTER(ctypes.c_int))[0] += 1


def capture(tag):
    builder = stream.create_graph_builder().begin_building()
    builder.callback(lambda: order.append(tag))
    builder.callback(bump, user_data=ctypes.addressof(counter))
    return builder, builder.end_building().complete()


builder, graph = capture("first")
graph.upload(stream)
for launch_stream in (stream, other, stream):
    graph.launch(launch_stream)
    launch_stream.sync()
graph.close()
builder.close()
builder, graph = capture("second")
graph.launch(other)
other.sync()
graph.close()
builder.close()
assert order == ["first"] * 3 + ["second"], order
assert counter.value == 4, counter.value
print("captured host functions ran", order, counter.value)
