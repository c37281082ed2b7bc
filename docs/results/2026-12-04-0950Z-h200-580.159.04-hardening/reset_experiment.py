"""What the driver does with host functions queued behind device work when the context goes away:
cuDevicePrimaryCtxReset_v2 on the primary context, cuCtxDestroy_v2 on a context of our own."""
import ctypes
import sys
import time

import gilsan

cuda = ctypes.CDLL("libcuda.so.1")
assert cuda.cuInit(0) == 0
device = ctypes.c_int()
assert cuda.cuDeviceGet(ctypes.byref(device), 0) == 0
HOST_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
ran = []
callback = HOST_FN(lambda user_data: ran.append(time.monotonic()))


def queue(stream):
    gilsan.Stream.from_handle(stream.value).work(300)
    for _ in range(5):
        assert cuda.cuLaunchHostFunc(stream, callback, None) == 0


def case(name, make, end):
    ran.clear()
    context = make()
    stream = ctypes.c_void_p()
    assert cuda.cuStreamCreate(ctypes.byref(stream), 1) == 0
    queue(stream)
    started = time.monotonic()
    result = end(context)
    returned = time.monotonic() - started
    ran_by_return = len(ran)
    time.sleep(1.0)
    print(f"{name}: returned {result} after {returned * 1000:.0f} ms; host functions run by then {ran_by_return}, "
          f"1 s later {len(ran)}", flush=True)
    current = ctypes.c_void_p()
    print(f"{name}: cuCtxGetCurrent {cuda.cuCtxGetCurrent(ctypes.byref(current))} current={current.value}", flush=True)
    print(f"{name}: cuStreamQuery(old stream) {cuda.cuStreamQuery(stream)}", flush=True)


def primary():
    context = ctypes.c_void_p()
    assert cuda.cuDevicePrimaryCtxRetain(ctypes.byref(context), device) == 0
    assert cuda.cuCtxSetCurrent(context) == 0
    return context


def own():
    context = ctypes.c_void_p()
    assert cuda.cuCtxCreate_v4(ctypes.byref(context), None, 0, device) == 0
    return context


which = sys.argv[1] if len(sys.argv) > 1 else "both"
if which in ("reset", "both"):
    case("primary reset", primary, lambda context: cuda.cuDevicePrimaryCtxReset_v2(device))
if which in ("destroy", "both"):
    case("own destroy", own, lambda context: cuda.cuCtxDestroy_v2(context))
