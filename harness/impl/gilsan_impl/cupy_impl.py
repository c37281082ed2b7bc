"""CuPy: Stream.launch_host_func(callback, arg) runs callback(arg) on the driver's callback thread
(CuPy's trampoline takes the GIL); CuPy's stream capture turns such launches into a cupy.cuda.graph.Graph."""
from gilsan_impl.base import Implementation, Stream


def _call_with(args_and_kwargs):
    fn, args, kwargs = args_and_kwargs
    fn(*args, **kwargs)


class CuPy(Implementation):
    name = "cupy"
    capabilities = frozenset({"stream-launch", "capture", "borrowed-stream"})
    lacks = {
        "graph-node": "CuPy builds graphs only by stream capture",
        "native-function": "launch_host_func takes a Python callable only",
    }
    modules = ("cupy",)
    distributions = ("cupy-cuda13x", "cupy-cuda12x", "cupy")
    needs_entry_points = {
        "cuGetExportTable": "the CUDA runtime under CuPy starts through the driver's private export tables",
    }

    def new_stream(self, device=0):
        import cupy

        with cupy.cuda.Device(device):
            stream = cupy.cuda.Stream(non_blocking=True)
        return Stream(stream, stream.ptr)

    def borrow_stream(self, handle):
        import cupy

        return Stream(cupy.cuda.ExternalStream(handle), handle)

    def synchronize(self, stream):
        stream.native.synchronize()

    def launch(self, stream, fn, *args, **kwargs):
        # CuPy passes one argument: the callable and its arguments travel in it, kept alive by CuPy.
        stream.native.launch_host_func(_call_with, (fn, args, kwargs))

    def captured_launch(self, stream, fn, *args, **kwargs):
        stream.native.begin_capture()
        stream.native.launch_host_func(_call_with, (fn, args, kwargs))
        return stream.native.end_capture()

    def launch_graph(self, graph, stream):
        graph.launch(stream.native)

    def release_graph(self, graph):
        del graph  # CuPy's Graph has no close: the last reference destroys it
