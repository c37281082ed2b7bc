# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 30
# gilsan: description = TensorRT-LLM #15855: launching host functions, GIL held, while an earlier one waits for the GIL
"""Reproduces the shape of TensorRT-LLM PR #15855 ("Release GIL around cudaLaunchHostFunc to fix
guided-decoding host-func deadlock", a regression from #13251).

The report's mechanism: the thread that launches host functions holds the GIL and spins inside the
driver's launchHostFunc, because the driver serializes host-function dispatch, while the host function
already in flight waits for the GIL. The blocking call there is the enqueue itself.

Here a Python host function is in flight (it naps with the GIL released, then needs it back) and the main
thread keeps launching host functions from Python, i.e. with the GIL held across the implementation's
enqueue unless the implementation releases it. Whether that hangs is the driver's business: on the
H200 with driver 580.159.04, cuLaunchHostFunc returned at once while a host function ran (probe:
while_host_function_runs.cuLaunchHostFunc = returns; topology.enqueue_blocks_at_depth = none), so this
passes there, and on the simulated driver with that profile. A driver whose profile shows the enqueue
blocking would turn it into gil-driver-inversion: `gilsan probe --diff` names that change.
"""
import threading
import time

import gilsan_impl

impl = gilsan_impl.current()
stream = impl.warm_stream()
other = impl.warm_stream()
started = threading.Event()
ran = []


def in_flight():
    started.set()
    time.sleep(0.3)


impl.launch(stream, in_flight)
started.wait()
for index in range(64):
    impl.launch(other, ran.append, index)
impl.synchronize(other)
impl.synchronize(stream)
assert ran == list(range(64)), ran
