"""An unmodified torch program (not a scenario; it knows nothing of gilsan) whose host function
allocates a CUDA tensor while the main thread empties torch's caching allocator, which it does with the
allocator's mutex held. CuPy enqueues the host function on a stream of the same (primary) context.
pytorch #159352's family: a native lock held across a driver call that waits for a host function
(docs/native-locks.md). Two ways for emptying to wait for the host function:

  free   (default) the cached segment is freed (cudaFree), which the driver holds back while a host
         function of the context runs;
  event  the cached block was used on the host function's stream (record_stream), so emptying first
         synchronizes the event recorded behind the host function (cudaEventSynchronize).

Run it as `gilsan run --driver real -- python torch_empty_cache_app.py [event]`; with --synchronize-first
the main thread waits for the host function before it empties the cache, and the program completes.
It prints torch's allocator backend and settings first, which decide which driver calls emptying makes.
"""
import os
import sys
import threading
import time

import cupy
import torch

mode = "event" if "event" in sys.argv[1:] else "free"
synchronize_first = "--synchronize-first" in sys.argv
print("allocator backend:", torch.cuda.get_allocator_backend(),
      "| PYTORCH_CUDA_ALLOC_CONF:", os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "(unset)"), "| mode:", mode, flush=True)

side = torch.cuda.Stream()
stream = cupy.cuda.ExternalStream(side.cuda_stream)
started = threading.Event()


def host_function(_):
    started.set()
    time.sleep(0.3)  # the main thread meanwhile empties the cache
    tensor = torch.empty(1024, dtype=torch.uint8, device="cuda")  # the caching allocator's mutex
    print("the host function allocated", tensor.numel(), "bytes", flush=True)


cached = torch.empty(64 << 20, dtype=torch.uint8, device="cuda")
torch.cuda.synchronize()
stream.launch_host_func(host_function, None)
if mode == "event":
    cached.record_stream(side)  # freeing it records an event on `side`, behind the host function
del cached  # its segment stays in torch's cache until empty_cache frees it
started.wait()
if synchronize_first:
    stream.synchronize()
print("emptying the cache", flush=True)
torch.cuda.empty_cache()
print("emptied", flush=True)
stream.synchronize()
print("done", flush=True)
