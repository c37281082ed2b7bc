"""gilsan's reference module: host_launch on a stream, graph host nodes, native functions."""
from gilsan_impl.base import Implementation, Stream

try:
    # Bound once for launch and launch_native, which loops call per host function: an import statement
    # in the method cost more than a tenth of a native host_launch. Elsewhere the methods import it.
    import gilsan as _gilsan
except ImportError:  # not built in here, nor on PYTHONPATH: require_installed says so
    _gilsan = None


class Reference(Implementation):
    name = "reference"
    capabilities = frozenset({"stream-launch", "graph-node", "capture", "native-function", "borrowed-stream"})

    def version(self):
        import gilsan

        return f"gilsan (reference, {gilsan.driver().kind} driver)"

    def require_installed(self):
        import gilsan  # noqa: F401  (built into the scenario child, or on PYTHONPATH)

    def __init__(self):
        self._contexts = {}  # device -> gilsan.Context: a primary context lives while one refers to it

    def new_stream(self, device=0):
        import gilsan

        if device == 0:
            stream = gilsan.Stream()
        else:
            context = self._contexts.setdefault(device, gilsan.Context(device=device))
            with context:
                stream = gilsan.Stream()
        return Stream(stream, stream.handle)

    def borrow_stream(self, handle):
        import gilsan

        return Stream(gilsan.Stream.from_handle(handle), handle)

    def synchronize(self, stream):
        stream.native.synchronize()

    def release_stream(self, stream):
        stream.native.close()
        stream.native = None

    def launch(self, stream, fn, *args, **kwargs):
        _gilsan.host_launch(stream.native, fn, *args, **kwargs)

    def launch_native(self, stream, function_address, user_data):
        _gilsan.host_launch(stream.native, function_address, user_data=user_data)

    def graph_with_host_node(self, stream, fn, *args, **kwargs):
        import gilsan

        graph = gilsan.Graph()
        graph.add_host_node(fn, *args, **kwargs)
        return (graph, graph.instantiate())

    def captured_launch(self, stream, fn, *args, **kwargs):
        import gilsan

        stream.native.begin_capture()
        gilsan.host_launch(stream.native, fn, *args, **kwargs)
        graph = stream.native.end_capture()
        return (graph, graph.instantiate())

    def launch_graph(self, graph, stream):
        graph[1].launch(stream.native)

    def release_graph(self, graph):
        graph[1].close()
        graph[0].close()
