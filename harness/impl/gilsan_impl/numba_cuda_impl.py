"""numba-cuda: Stream.add_callback(callback, arg), a cuStreamAddCallback whose callback numba calls
as callback(stream, status, arg) through ctypes (which takes the GIL)."""
import functools

from gilsan_impl.base import Implementation, Stream


def _stream_handle(stream):
    handle = stream.handle
    value = getattr(handle, "value", None)  # ctypes c_void_p in numba's own binding
    return int(value if value is not None else handle)


class NumbaCuda(Implementation):
    name = "numba-cuda"
    capabilities = frozenset({"stream-launch", "borrowed-stream"})
    lacks = {
        "graph-node": "numba-cuda has no graph API",
        "capture": "numba-cuda has no stream capture",
        "native-function": "add_callback takes a Python callable",
    }
    modules = ("numba.cuda",)
    distributions = ("numba-cuda", "cuda-bindings")

    def new_stream(self, device=0):
        from numba import cuda

        cuda.select_device(device)
        stream = cuda.stream()
        return Stream(stream, _stream_handle(stream))

    def borrow_stream(self, handle):
        from numba import cuda

        return Stream(cuda.external_stream(handle), handle)

    def synchronize(self, stream):
        stream.native.synchronize()

    def launch(self, stream, fn, *args, **kwargs):
        call = functools.partial(fn, *args, **kwargs)
        stream.native.add_callback(lambda _stream, _status, _arg: call(), None)
