# gilsan: expect = pass
# gilsan: drivers = real
# gilsan: needs = cuda.core
# gilsan: timeout = 60
# gilsan: description = the fix of cuda_core_graph_lost_at_exit.py: the stream is synchronized before exit
"""The twin of `cuda_core_graph_lost_at_exit.py` with the fix applied: every launch's callback runs."""
import threading

import _cuda_core

import gilsan

device = _cuda_core.current_device()
stream = device.create_stream()
ran = threading.Event()
graph = _cuda_core.graph_with_callback(stream, ran.set)
gilsan.Stream.from_handle(_cuda_core.stream_handle(stream)).work(300)
graph.launch(stream)
stream.sync()
assert ran.is_set(), "the graph's host callback did not run"
print("the callback ran before exit")
