"""An unmodified torch program (not a scenario; it knows nothing of gilsan) whose host function
allocates a CUDA tensor while the main thread empties torch's caching allocator: emptying frees the
cached segments (cudaFree) with the allocator's mutex held, and the driver holds a free back while a
host function of the context runs; the host function's allocation needs that mutex. CuPy enqueues the
host function on a stream of the same (primary) context. pytorch #159352's family: a native lock held
across a driver call that waits for a host function (docs/native-locks.md).

Run it as `gilsan run --driver real -- python torch_empty_cache_app.py`; with --synchronize-first the
main thread waits for the host function before it empties the cache, and the program completes.
"""
import sys
import threading
import time

import cupy
import torch

synchronize_first = "--synchronize-first" in sys.argv
cached = torch.empty(64 << 20, dtype=torch.uint8, device="cuda")
del cached  # its segment stays in torch's cache until empty_cache frees it
torch.cuda.synchronize()

stream = cupy.cuda.Stream(non_blocking=True)
started = threading.Event()


def host_function(_):
    started.set()
    time.sleep(0.3)  # the main thread meanwhile empties the cache
    tensor = torch.empty(1024, dtype=torch.uint8, device="cuda")  # the caching allocator's mutex
    print("the host function allocated", tensor.numel(), "bytes", flush=True)


stream.launch_host_func(host_function, None)
started.wait()
if synchronize_first:
    stream.synchronize()
torch.cuda.empty_cache()
stream.synchronize()
print("done", flush=True)
