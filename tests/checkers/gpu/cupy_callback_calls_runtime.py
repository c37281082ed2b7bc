"""A CuPy host callback that calls the CUDA runtime (cudaMalloc through cupy.cuda.runtime).

CUDA forbids CUDA calls in host functions; driver 580.159.04 refuses cuMemAlloc there with
CUDA_ERROR_NOT_PERMITTED. Under libgilsan_inject.so the run must report cuda-call-in-host-function
for the driver call the runtime made, with the driver's result.
"""
import threading

import cupy

stream = cupy.cuda.Stream(non_blocking=True)
outcome = {}
ran = threading.Event()


def allocate_inside(_arg):
    try:
        pointer = cupy.cuda.runtime.malloc(256)
        cupy.cuda.runtime.free(pointer)
        outcome["result"] = "allowed"
    except cupy.cuda.runtime.CUDARuntimeError as error:
        outcome["result"] = str(error)
    finally:
        ran.set()


stream.launch_host_func(allocate_inside, None)
if not ran.wait(timeout=60):
    raise SystemExit("the CuPy host callback did not run within 60 s")
stream.synchronize()
print(f"cudaMalloc inside the host callback: {outcome['result']}")
