"""Start latency after device work, for `gilsan bench`: how long a host function holds its stream up
once the device work in front of it has completed, through gilsan.host_launch and through the raw
driver (ctypes cuLaunchHostFunc), with a Python callable and with a native function.

One sample: device work, a timing event E1, the host function, a timing event E2, then a wait for E2;
the sample is E1 -> E2 on the device's clock. E1 completes when the work in front of the host function
does, so the sample runs from that completion through the host function's start (the driver's
hand-off to its callback thread, the trampoline, the GIL for a Python callable), its empty body, and
its return reaching the stream. The device clock is the only one both ends share: a host thread that
woke on E1 and read its own clock would also need the GIL back to record the time, competing with the
very Python callback it times. The empty body makes the start the bulk of what is measured."""
import ctypes
import statistics

import gilsan

import bench_workloads as w


def percentiles(samples):
    """p50 and p99 of one round's samples (nearest rank), in the samples' unit."""
    ordered = sorted(samples)
    rank = max(0, min(len(ordered) - 1, int(round(0.99 * len(ordered))) - 1))
    return {"p50": statistics.median(ordered), "p99": ordered[rank]}


def _samples(stream, enqueue, count, work_ms):
    """`count` samples in microseconds; `enqueue()` launches one empty host function on `stream`."""
    native = gilsan.Stream.from_handle(stream.handle)
    before, after = gilsan.Event(timing=True), gilsan.Event(timing=True)
    values = []
    for _ in range(count):
        # The work outlasts the enqueueing below, so E1 completes with the host function already queued.
        native.work(work_ms)
        before.record(native)
        enqueue()
        after.record(native)
        after.synchronize()
        values.append(before.elapsed_ms(after) * 1000.0)
    before.close()
    after.close()
    return values


def gilsan_python(impl, stream, count, work_ms):
    return percentiles(_samples(stream, lambda: impl.launch(stream, w._nothing), count, work_ms))


def gilsan_native(impl, stream, count, work_ms):
    function, counter = w._native_increment()
    address = ctypes.addressof(counter)
    return percentiles(_samples(stream, lambda: impl.launch_native(stream, function, address), count, work_ms))


def raw_python(raw, stream, count, work_ms):
    return percentiles(_samples(stream, lambda: raw.launch(stream.handle, raw.python_thunk, None), count, work_ms))


def raw_native(raw, stream, count, work_ms):
    function, counter = w._native_increment()
    address = ctypes.addressof(counter)
    return percentiles(_samples(stream, lambda: raw.launch(stream.handle, function, address), count, work_ms))
