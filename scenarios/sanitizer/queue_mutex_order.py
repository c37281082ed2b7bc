# gilsan: expect = report:lock-order-cycle
# gilsan: drivers = sim, real
# gilsan: timeout = 20
# gilsan: description = a host function puts into a queue.Queue; the main thread synchronizes while holding the queue's mutex
"""Locks made by queue.Queue are traced too.

Host functions often hand results back through a queue.Queue: `put` takes the queue's mutex (a
threading.Lock that Queue.__init__ makes). Here the host function's put has finished when the main
thread, holding that mutex (as code that inspects `q.queue` does), synchronizes the stream. The run
completes, but a put still queued on the stream would wait for the mutex while its holder waits for
the stream: the sanitizer reports "Lock of Queue -> completion of the stream -> Lock of Queue".
"""
import queue

import gilsan

stream = gilsan.Stream()
results = queue.Queue()


def hand_back():
    results.put("done")


gilsan.host_launch(stream, hand_back)
assert results.get(timeout=10) == "done", "the host function did not run"
with results.mutex:  # e.g. to look at results.queue without racing the producers
    stream.synchronize()
print("no hang on this run")
