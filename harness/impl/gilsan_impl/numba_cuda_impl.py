"""numba-cuda: Stream.add_callback(callback, arg), a cuStreamAddCallback whose callback numba calls
as callback(stream, status, arg) through ctypes (which takes the GIL)."""
import ctypes
import functools

from gilsan_impl.base import Implementation, Stream


def _stream_handle(stream):
    """A numba-cuda Stream's CUstream as an int. numba's own ctypes driver holds a c_void_p (whose
    `value` is None for the NULL stream); its cuda.bindings driver holds a cuda.bindings CUstream,
    which has no `value` and which int() reads."""
    handle = stream.handle
    if isinstance(handle, ctypes.c_void_p):
        return handle.value or 0
    return int(handle)


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
        # numba's own add_callback, as its users call it: under its cuda.bindings driver numba-cuda 0.30.4
        # reads `handle.value`, which a CUstream lacks, and raises AttributeError. That is numba-cuda's
        # bug, and the conformance suite and the bench report it as such rather than work around it.
        stream.native.add_callback(lambda _stream, _status, _arg: call(), None)
