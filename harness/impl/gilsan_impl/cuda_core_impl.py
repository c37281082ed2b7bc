"""cuda.core: host callbacks as graph nodes, both ways cuda.core 1.2 builds graphs: an explicit
GraphDefinition (GraphDefinition.callback, a host node) and stream capture (GraphBuilder.callback,
a cuLaunchHostFunc recorded into the graph). A stream-level host launch only where the installed
cuda.core has one (1.2 has none: the capability is reported missing)."""
import functools

from gilsan_impl.base import Implementation, Stream


def _cuda_core():
    try:
        import cuda.core as core

        core.Device  # noqa: B018  (cuda.core 1.x exports it at the top)
        return core
    except (ImportError, AttributeError):
        import cuda.core.experimental as core

        return core


class _ForeignStream:
    """A CUstream handle offered to cuda.core through its __cuda_stream__ protocol."""

    def __init__(self, handle):
        self._handle = handle

    def __cuda_stream__(self):
        return (0, self._handle)


class CudaCore(Implementation):
    name = "cuda-core"
    modules = ("cuda.core",)
    distributions = ("cuda-core", "cuda-bindings")

    def __init__(self):
        self._stream_launch = None
        capabilities = {"graph-node", "capture", "borrowed-stream"}
        self.lacks = {"native-function": "cuda.core has no stream-level launch of a native function"}
        try:
            core = _cuda_core()
            self._stream_launch = getattr(core, "host_launch", None)
        except ImportError:
            core = None
        if self._stream_launch is not None:
            capabilities.add("stream-launch")
        else:
            version = getattr(core, "__version__", "?") if core is not None else "?"
            self.lacks["stream-launch"] = f"cuda.core {version} has no host_launch (host callbacks are graph nodes only)"
        self.capabilities = frozenset(capabilities)

    @staticmethod
    def _device(ordinal=0):
        device = _cuda_core().Device(ordinal)
        device.set_current()
        return device

    def new_stream(self, device=0):
        stream = self._device(device).create_stream()
        return Stream(stream, int(stream.handle))

    def borrow_stream(self, handle):
        return Stream(self._device().create_stream(_ForeignStream(handle)), handle)

    def synchronize(self, stream):
        stream.native.sync()

    def release_stream(self, stream):
        stream.native.close()
        stream.native = None

    def launch(self, stream, fn, *args, **kwargs):
        self._stream_launch(stream.native, fn, *args, **kwargs)

    def graph_with_host_node(self, stream, fn, *args, **kwargs):
        from cuda.core.graph import GraphDefinition

        self._device()
        definition = GraphDefinition()
        definition.callback(functools.partial(fn, *args, **kwargs))
        return definition.instantiate()

    def captured_launch(self, stream, fn, *args, **kwargs):
        builder = stream.native.create_graph_builder()
        builder.begin_building()
        builder.callback(functools.partial(fn, *args, **kwargs))
        return builder.end_building().complete()

    def launch_graph(self, graph, stream):
        graph.launch(stream.native)

    def release_graph(self, graph):
        graph.close()
