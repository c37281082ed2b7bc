"""The program of gil_held_enqueues_proceed_lazy.py and _eager.py (the same calls; the header's
module_loading is what differs): with the GIL held while a Python host function naps, a kernel launched
before, a pinned copy, a memset and an event record on another stream; then, with the GIL released, a
poll of the event that fails if the host function ends first."""
import threading
import time

import gilsan_impl
from gilsan_impl.program import Driver


def enqueue_warm_work_while_a_host_function_runs():
    impl = gilsan_impl.current()
    stream = impl.warm_stream()
    released, held = Driver(), Driver(hold_gil=True)
    released.make_context_current()
    module = released.load_module()
    function = released.module_function(module)
    other = released.new_stream()
    released.launch_kernel(function, other)
    released.stream_synchronize(other)
    nbytes = 1 << 16
    device_memory, host_memory = released.allocate(nbytes), released.allocate_pinned(nbytes)
    event = released.new_event()
    started, ended = threading.Event(), threading.Event()

    def naps():
        started.set()
        time.sleep(1.0)
        ended.set()

    impl.launch(stream, naps)
    started.wait()
    held.launch_kernel(function, other)
    held.copy_to_device_async(device_memory, host_memory, nbytes, other)
    held.memset_async(device_memory, 0x5A, nbytes, other)
    held.record_event(event, other)
    while not released.event_completed(event):
        if ended.is_set():
            raise AssertionError("the work on the other stream completed only after the host function ended")
        time.sleep(0.001)
    impl.synchronize(stream)
    released.destroy_event(event)
    released.free_pinned(host_memory)
    released.free(device_memory)
    released.destroy_stream(other)
    released.unload_module(module)
