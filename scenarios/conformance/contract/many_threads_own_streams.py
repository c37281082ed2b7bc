# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 60
# gilsan: description = 8 threads launch 200 host functions each on streams of their own; all run, in order
"""Concurrency, one stream per thread: 8 threads each create a stream and launch 200 host functions on it
at the same time. Every host function runs exactly once, and each stream's run in launch order.

Why it matters: a host_launch keeps state (a registry of pending callables, a lazily created context or
trampoline) that many threads reach at once; a race there loses or repeats callbacks, or crashes.
"""
import threading

import gilsan_impl

impl = gilsan_impl.current()
THREADS, LAUNCHES = 8, 200
seen = {thread: [] for thread in range(THREADS)}
errors = []
start = threading.Barrier(THREADS)


def launcher(thread):
    try:
        stream = impl.new_stream()
        start.wait()
        for index in range(LAUNCHES):
            impl.launch(stream, seen[thread].append, index)
        impl.synchronize(stream)
    except Exception as error:  # reported below: a thread's exception would otherwise go unnoticed
        errors.append(repr(error))


threads = [threading.Thread(target=launcher, args=(thread,)) for thread in range(THREADS)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
assert not errors, errors
for thread, values in seen.items():
    assert values == list(range(LAUNCHES)), f"thread {thread}: {len(values)} host functions ran, not in order"
print(f"{impl.name}: {THREADS * LAUNCHES} host functions from {THREADS} threads ran in order")
