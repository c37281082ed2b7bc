# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 30
# gilsan: module_loading = lazy
# gilsan: description = GIL-held warm launch, copy, memset and event record on another stream return while a Python host function runs (lazy loading)
"""The cells that never wait, under LAZY loading (profile:
enqueued_work_while_host_function_runs.lazy: cuLaunchKernel, cuMemcpyHtoDAsync, cuMemsetD8Async and
cuEventRecord = proceeds, measured on the H200): with the GIL held while a Python host function naps,
the program launches a kernel it has launched before, copies pinned memory to the device, sets it and
records an event, all on another stream. Each call returns, and the event completes while the host
function still runs (the program polls it with the GIL released and fails if the host function ends
first): a GIL-held enqueue of warm work is safe, and the callback thread does not hold it back. The
program is _warm_enqueues.py, shared with the other loading mode's scenario.
"""
from _warm_enqueues import enqueue_warm_work_while_a_host_function_runs

enqueue_warm_work_while_a_host_function_runs()
