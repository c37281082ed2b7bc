"""The CuPy versions of sim_cases/, for the GPU machine (ci/gpu-run.sh pytest-plugin): the same three
endings through CuPy's own host-callback trampoline and the CUDA runtime. Skipped without CuPy."""
import ctypes

import pytest

cupy = pytest.importorskip("cupy")


def test_clean():
    stream = cupy.cuda.Stream(non_blocking=True)
    ran = []
    stream.launch_host_func(lambda _: ran.append("ran"), None)
    stream.synchronize()
    assert ran == ["ran"]


def test_gil_held_synchronize_deadlock():
    """cuStreamSynchronize through ctypes.PyDLL keeps the GIL; the callback waits for it behind a
    busy kernel that keeps it pending until the main thread is inside the synchronize."""
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:  # the kernel goes to the current stream
        spin = cupy.RawKernel(r'''
            extern "C" __global__ void spin(long long cycles) {
              long long start = clock64();
              while (clock64() - start < cycles) {}
            }''', "spin")
        spin((1,), (1,), (cupy.int64(400_000_000),))
    stream.launch_host_func(lambda _: print("unreachable: the main thread holds the GIL"), None)
    libcuda = ctypes.PyDLL("libcuda.so.1")
    libcuda.cuStreamSynchronize.argtypes = [ctypes.c_void_p]
    libcuda.cuStreamSynchronize(ctypes.c_void_p(stream.ptr))


def test_callback_makes_cuda_call():
    stream = cupy.cuda.Stream(non_blocking=True)
    answers = []

    def allocate(_):
        try:
            cupy.cuda.runtime.free(cupy.cuda.runtime.malloc(64))
            answers.append("allocated")
        except cupy.cuda.runtime.CUDARuntimeError as error:
            answers.append(str(error))

    stream.launch_host_func(allocate, None)
    stream.synchronize()
    assert len(answers) == 1
