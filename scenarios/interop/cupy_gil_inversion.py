# gilsan: expect = deadlock:gil-driver-inversion
# gilsan: drivers = real
# gilsan: needs = cupy
# gilsan: timeout = 20
# gilsan: description = CuPy's launch_host_func callback waits for the GIL held by a ctypes.PyDLL cuStreamSynchronize
"""The GIL / driver inversion with a peer's trampoline, which writes nothing to gilsan's board.

CuPy's Stream.launch_host_func runs the Python callback through its own trampoline (`with gil`),
and ctypes.PyDLL calls cuStreamSynchronize without releasing the GIL, as a C extension that forgets
Py_BEGIN_ALLOW_THREADS would. gilsan only provides the device work that keeps the callback pending
(a spin kernel on CuPy's stream, borrowed by handle). The watchdog must infer both GIL facts from
native frames: the callback thread waiting in CuPy's trampoline for the GIL, and the main thread
holding it inside libcuda.
"""
import ctypes

import cupy

import gilsan

stream = cupy.cuda.Stream(non_blocking=True)
gilsan.Stream.from_handle(stream.ptr).work(200)
stream.launch_host_func(lambda _: print("unreachable: the main thread holds the GIL"), None)

libcuda = ctypes.PyDLL("libcuda.so.1")  # PyDLL: the call keeps the GIL
libcuda.cuStreamSynchronize.argtypes = [ctypes.c_void_p]
libcuda.cuStreamSynchronize(ctypes.c_void_p(stream.ptr))
print("not reached")
