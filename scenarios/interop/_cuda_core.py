"""cuda.core's device and a graph with one Python host callback (not a scenario): what the cuda.core
scenarios share. cuda.core 1.2 has host callbacks only as graph nodes (GraphBuilder.callback, recorded
through stream capture); it has no stream-level host_launch."""
try:
    from cuda.core import Device
except ImportError:  # cuda.core before 1.0 kept these in cuda.core.experimental
    from cuda.core.experimental import Device


def current_device():
    device = Device()
    device.set_current()
    return device


def graph_with_callback(stream, callback):
    """A complete (launchable) graph whose only node is `callback`, a Python callable with no arguments."""
    builder = stream.create_graph_builder()
    builder.begin_building()
    builder.callback(callback)
    return builder.end_building().complete()


def stream_handle(stream):
    """The CUstream as an integer, for ctypes and gilsan.Stream.from_handle."""
    return int(stream.handle)
