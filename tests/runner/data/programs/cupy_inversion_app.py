"""An unmodified CuPy program that hangs (not a scenario; it knows nothing of gilsan): a CuPy host
callback waits for the GIL that a ctypes.PyDLL cuStreamSynchronize holds, as a C extension that forgot
Py_BEGIN_ALLOW_THREADS would (cupy_gil_inversion.py's mechanism, with CuPy's own kernel as the device
work). Run it as `gilsan run --expect deadlock:gil-driver-inversion -- python cupy_inversion_app.py`;
with --release-gil it completes."""
import ctypes
import sys

import cupy

spin = cupy.RawKernel(
    r"""extern "C" __global__ void spin(long long cycles) {
          long long start = clock64();
          while (clock64() - start < cycles) {}
        }""",
    "spin",
)
stream = cupy.cuda.Stream(non_blocking=True)
spin((1,), (1,), (cupy.int64(200_000_000),), stream=stream)  # about 0.1 s of device work
stream.launch_host_func(lambda _: print("the callback ran", flush=True), None)
release_gil = len(sys.argv) > 1 and sys.argv[1] == "--release-gil"
libcuda = (ctypes.CDLL if release_gil else ctypes.PyDLL)("libcuda.so.1")
libcuda.cuStreamSynchronize.argtypes = [ctypes.c_void_p]
assert libcuda.cuStreamSynchronize(ctypes.c_void_p(stream.ptr)) == 0
print("synchronized", flush=True)
