"""cuda.bindings (cuda-python's driver API): cuLaunchHostFunc with a ctypes CFUNCTYPE that wraps the
Python callable (ctypes takes the GIL to run it), or with a native function pointer; the same thunk in
a graph host node (cuGraphAddHostNode) or launched on a capturing stream. The binding keeps nothing
alive: the caller (this adapter) keeps each thunk for the rest of the process, as its users must, since
nothing tells them when the driver is done with it."""
import ctypes
import functools

from gilsan_impl.base import Implementation, Stream

HOST_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


def _check(result):
    error = result[0] if isinstance(result, tuple) else result
    if int(error) != 0:
        raise RuntimeError(f"cuda.bindings: {error!r}")
    return result[1] if isinstance(result, tuple) and len(result) == 2 else result


class CudaBindings(Implementation):
    name = "cuda-bindings"
    capabilities = frozenset({"stream-launch", "graph-node", "capture", "native-function", "borrowed-stream"})
    modules = ("cuda.bindings",)
    distributions = ("cuda-bindings",)

    def __init__(self):
        self._keep = []  # the CFUNCTYPE thunks the driver may still call
        self._ready = False

    def _driver(self, device=None):
        """The driver module; device 0's primary context current on first use, `device`'s if given."""
        from cuda.bindings import driver

        if not self._ready or device is not None:
            _check(driver.cuInit(0))
            handle = _check(driver.cuDeviceGet(device or 0))
            context = _check(driver.cuDevicePrimaryCtxRetain(handle))
            _check(driver.cuCtxSetCurrent(context))
            self._ready = True
        return driver

    def new_stream(self, device=0):
        driver = self._driver(device)
        stream = _check(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))
        return Stream(stream, int(stream))

    def borrow_stream(self, handle):
        driver = self._driver()
        return Stream(driver.CUstream(handle), handle)

    def synchronize(self, stream):
        _check(self._driver().cuStreamSynchronize(stream.native))

    def release_stream(self, stream):
        _check(self._driver().cuStreamDestroy(stream.native))
        stream.native = None

    def _thunk_address(self, fn, args, kwargs):
        call = functools.partial(fn, *args, **kwargs)
        thunk = HOST_FN(lambda user_data: call())
        self._keep.append(thunk)
        return ctypes.cast(thunk, ctypes.c_void_p).value

    def launch(self, stream, fn, *args, **kwargs):
        self._launch_address(stream, self._thunk_address(fn, args, kwargs), 0)

    def launch_native(self, stream, function_address, user_data):
        self._launch_address(stream, function_address, user_data)

    def _launch_address(self, stream, address, user_data):
        driver = self._driver()
        _check(driver.cuLaunchHostFunc(stream.native, driver.CUhostFn(address), user_data))

    def graph_with_host_node(self, stream, fn, *args, **kwargs):
        driver = self._driver()
        graph = _check(driver.cuGraphCreate(0))
        params = driver.CUDA_HOST_NODE_PARAMS()
        params.fn = driver.CUhostFn(self._thunk_address(fn, args, kwargs))
        params.userData = 0
        _check(driver.cuGraphAddHostNode(graph, None, 0, params))
        return (graph, _check(driver.cuGraphInstantiate(graph, 0)))

    def captured_launch(self, stream, fn, *args, **kwargs):
        driver = self._driver()
        mode = driver.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL
        _check(driver.cuStreamBeginCapture(stream.native, mode))
        self.launch(stream, fn, *args, **kwargs)
        graph = _check(driver.cuStreamEndCapture(stream.native))
        return (graph, _check(driver.cuGraphInstantiate(graph, 0)))

    def launch_graph(self, graph, stream):
        _check(self._driver().cuGraphLaunch(graph[1], stream.native))

    def release_graph(self, graph):
        driver = self._driver()
        _check(driver.cuGraphExecDestroy(graph[1]))
        _check(driver.cuGraphDestroy(graph[0]))
