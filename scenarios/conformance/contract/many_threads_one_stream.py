# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 60
# gilsan: description = 8 threads launch 200 host functions each on one shared stream; each runs once, in its thread's order
"""Concurrency, one shared stream: 8 threads launch 200 host functions each on the same stream at once.
Every host function runs exactly once, and the ones a thread launched run in the order it launched them.

Why it matters: a stream object shared between threads is the common case (a library's default stream);
an implementation whose per-stream bookkeeping is not thread-safe loses, repeats or reorders callbacks.
"""
import threading

import gilsan_impl

impl = gilsan_impl.current()
THREADS, LAUNCHES = 8, 200
stream = impl.new_stream()
seen = []
errors = []
start = threading.Barrier(THREADS)


def launcher(thread):
    try:
        start.wait()
        for index in range(LAUNCHES):
            impl.launch(stream, seen.append, (thread, index))
    except Exception as error:  # reported below: a thread's exception would otherwise go unnoticed
        errors.append(repr(error))


threads = [threading.Thread(target=launcher, args=(thread,)) for thread in range(THREADS)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
impl.synchronize(stream)
assert not errors, errors
assert len(seen) == THREADS * LAUNCHES, f"{len(seen)} of {THREADS * LAUNCHES} host functions ran"
for thread in range(THREADS):
    order = [index for who, index in seen if who == thread]
    assert order == list(range(LAUNCHES)), f"thread {thread}'s host functions ran out of order"
print(f"{impl.name}: {len(seen)} host functions on one stream, each thread's in order")
