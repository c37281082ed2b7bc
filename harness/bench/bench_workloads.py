"""The measured workloads of `gilsan bench`: each enqueues `count` empty host functions and returns the
drained time per callback in microseconds. Python callables are launched through the gilsan_impl
adapters, so gilsan's reference module and its peers run the same loop."""
import ctypes
import threading
import time

import gilsan

HOST_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


def _nothing(*_):
    return None


def _native_increment():
    """A native CUhostFn that counts, and a counter for its user data (the module's test function)."""
    counter = ctypes.c_uint64(0)
    return gilsan.native_test_functions()["increment_u64"], counter


class RawDriver:
    """cuLaunchHostFunc called through ctypes on the same driver library gilsan loaded."""

    def __init__(self):
        self.library = ctypes.CDLL(gilsan.driver().library)
        self.launch = self.library.cuLaunchHostFunc
        self.launch.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
        self.launch.restype = ctypes.c_int
        self.python_thunk = HOST_FN(_nothing)  # kept alive for the whole run

    def launch_native(self, stream, function, user_data):
        """The raw launch behind the adapters' method shape (impl.launch_native(stream, fn, data)), so that
        the loops compared with the raw driver differ by the implementation's call, not by a Python
        method call only one of them makes."""
        self.launch(stream.handle, function, user_data)


def python_loop(impl, stream, count):
    """Enqueue `count` Python callables in a Python loop, then synchronize: enqueue and drain overlap."""
    start = time.perf_counter()
    for _ in range(count):
        impl.launch(stream, _nothing)
    impl.synchronize(stream)
    return (time.perf_counter() - start) * 1e6 / count


def _behind_held_work(impl, stream, count, enqueue, hold=None):
    """Enqueue behind a host function that waits, then release it and time the drain alone, the
    enqueuing thread waiting without the GIL in the implementation's synchronize. `hold` enqueues the
    waiting host function (default: the implementation's own launch of a Python callable)."""
    released = threading.Event()
    if hold is None:
        impl.launch(stream, released.wait, 60.0)
    else:
        hold(released)
    enqueue(count)
    start = time.perf_counter()
    released.set()
    impl.synchronize(stream)
    return (time.perf_counter() - start) * 1e6 / count


def python_held(impl, stream, count):
    return _behind_held_work(impl, stream, count, lambda n: [impl.launch(stream, _nothing) for _ in range(n)])


def native_held(impl, stream, count):
    function, counter = _native_increment()
    address = ctypes.addressof(counter)
    return _behind_held_work(impl, stream, count,
                             lambda n: [impl.launch_native(stream, function, address) for _ in range(n)])


def native_loop(impl, stream, count):
    function, counter = _native_increment()
    address = ctypes.addressof(counter)
    start = time.perf_counter()
    for _ in range(count):
        impl.launch_native(stream, function, address)
    impl.synchronize(stream)
    return (time.perf_counter() - start) * 1e6 / count


def raw_native_loop(raw, impl, stream, count):
    function, counter = _native_increment()
    address = ctypes.addressof(counter)
    start = time.perf_counter()
    for _ in range(count):
        raw.launch_native(stream, function, address)
    impl.synchronize(stream)
    return (time.perf_counter() - start) * 1e6 / count


def raw_python_loop(raw, impl, stream, count):
    start = time.perf_counter()
    for _ in range(count):
        raw.launch(stream.handle, raw.python_thunk, None)
    impl.synchronize(stream)
    return (time.perf_counter() - start) * 1e6 / count


def raw_python_held(raw, impl, stream, count):
    def hold(released):
        # Held by a ctypes callback too: one of gilsan's would leave its kept thread state on the
        # callback thread, and every ctypes callback after it would borrow that state.
        raw.holder = HOST_FN(lambda _: released.wait(60.0))  # alive until the drain is over
        raw.launch(stream.handle, raw.holder, None)

    return _behind_held_work(impl, stream, count,
                             lambda n: [raw.launch(stream.handle, raw.python_thunk, None) for _ in range(n)], hold)


def gilsan_graph(stream, nodes):
    """A graph of `nodes` Python host nodes captured with gilsan: launched once, drained per node."""
    native = gilsan.Stream.from_handle(stream.handle)
    native.begin_capture()
    for _ in range(nodes):
        gilsan.host_launch(native, _nothing)
    executable = native.end_capture().instantiate()
    executable.launch(native)  # the first launch uploads; not timed
    native.synchronize()
    start = time.perf_counter()
    executable.launch(native)
    native.synchronize()
    return (time.perf_counter() - start) * 1e6 / nodes


def _note_thread(seen):
    seen.add(threading.get_native_id())


def across_streams(impl, streams, count, seen):
    """`count` Python callables round-robin over `streams` of one context, then every stream
    synchronized; `seen` collects the callback threads that ran them (one: the driver serializes)."""
    start = time.perf_counter()
    for index in range(count):
        impl.launch(streams[index % len(streams)], _note_thread, seen)
    for stream in streams:
        impl.synchronize(stream)
    return (time.perf_counter() - start) * 1e6 / count


def from_threads(impl, streams, count):
    """One Python thread per stream, each launching its share of `count` Python callables, then
    synchronizing its stream; timed until every thread is done."""
    share = max(1, count // len(streams))

    def launch_share(stream):
        for _ in range(share):
            impl.launch(stream, _nothing)
        impl.synchronize(stream)

    workers = [threading.Thread(target=launch_share, args=(stream,)) for stream in streams]
    start = time.perf_counter()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return (time.perf_counter() - start) * 1e6 / (share * len(streams))


def cuda_core_graph(impl, stream, nodes):
    """cuda.core's graph of `nodes` Python callbacks, captured in order with a GraphBuilder (as
    gilsan_graph captures gilsan's): launched once, drained per node."""
    builder = stream.native.create_graph_builder()
    builder.begin_building()
    for _ in range(nodes):
        builder.callback(_nothing)
    graph = builder.end_building().complete()
    try:
        graph.launch(stream.native)  # the first launch uploads; not timed
        stream.native.sync()
        start = time.perf_counter()
        graph.launch(stream.native)
        stream.native.sync()
        return (time.perf_counter() - start) * 1e6 / nodes
    finally:
        graph.close()
