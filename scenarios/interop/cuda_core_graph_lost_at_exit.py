# gilsan: expect = report:host-function-lost-at-exit
# gilsan: drivers = real
# gilsan: needs = cuda.core
# gilsan: timeout = 60
# gilsan: description = a cuda.core graph launched behind long device work when the interpreter exits: its callback never runs
"""A graph host callback lost at exit.

The graph's node is a Python callback (cuda.core's GraphBuilder.callback). The graph is launched behind
three seconds of device work and the program ends without synchronizing: the interpreter finishes
first, and the callback never runs. The forwarding driver counts the launch as one run of the node,
which never began: host-function-lost-at-exit. The fix: cuda_core_graph_synchronized_before_exit.py.
"""
import _cuda_core

import gilsan

device = _cuda_core.current_device()
stream = device.create_stream()
graph = _cuda_core.graph_with_callback(stream, lambda: print("the callback ran"))
gilsan.Stream.from_handle(_cuda_core.stream_handle(stream)).work(3000)
graph.launch(stream)
print("leaving with a graph launch pending", flush=True)
