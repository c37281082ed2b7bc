"""The CUDA driver through ctypes, as a binding of its own would call it (not a scenario).

`DRIVER` releases the GIL around every call (ctypes.CDLL); `DRIVER_KEEPING_GIL` holds it (ctypes.PyDLL),
as a C extension that forgets Py_BEGIN_ALLOW_THREADS would. Both are the libcuda.so.1 the process
loads: under `gilsan run`, the simulated driver or gilsan's forwarding driver in front of the real one.
Device work comes from the gilsan module (`busy`), which borrows the stream by handle.
"""
import ctypes

DRIVER = ctypes.CDLL("libcuda.so.1")
DRIVER_KEEPING_GIL = ctypes.PyDLL("libcuda.so.1")

# A ctypes host function: ctypes takes the GIL itself (PyGILState_Ensure) to run the Python function.
HOST_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
STREAM_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)

CU_STREAM_NON_BLOCKING = 1


class DriverError(RuntimeError):
    pass


def check(result, what):
    if result != 0:
        raise DriverError(f"{what} failed: CUresult {result}")


def init():
    """cuInit and device 0's primary context made current, as the runtime API does. Returns the context."""
    check(DRIVER.cuInit(0), "cuInit")
    device = ctypes.c_int()
    check(DRIVER.cuDeviceGet(ctypes.byref(device), 0), "cuDeviceGet")
    context = ctypes.c_void_p()
    check(DRIVER.cuDevicePrimaryCtxRetain(ctypes.byref(context), device), "cuDevicePrimaryCtxRetain")
    check(DRIVER.cuCtxSetCurrent(context), "cuCtxSetCurrent")
    return context.value


def new_stream():
    stream = ctypes.c_void_p()
    check(DRIVER.cuStreamCreate(ctypes.byref(stream), CU_STREAM_NON_BLOCKING), "cuStreamCreate")
    return stream.value


def launch_host_func(stream, host_fn, library=DRIVER):
    check(library.cuLaunchHostFunc(ctypes.c_void_p(stream), host_fn, None), "cuLaunchHostFunc")


def synchronize(stream, library=DRIVER):
    check(library.cuStreamSynchronize(ctypes.c_void_p(stream)), "cuStreamSynchronize")


def busy(stream, milliseconds):
    """Device work that keeps `stream` busy, on either driver: the gilsan module's spin kernel."""
    import gilsan

    gilsan.Stream.from_handle(stream).work(milliseconds)
