# gilsan: expect = pass
# gilsan: drivers = sim, real
# gilsan: timeout = 20
# gilsan: description = the fixed twin: the consumer takes from the bounded Queue before it synchronizes
"""`bounded_queue_put_in_host_function.py` fixed: the consumer drains the queue on its own thread and
synchronizes the stream only once it has the host function's result.
"""
import queue
import threading

import gilsan

stream = gilsan.Stream()
results = queue.Queue(maxsize=1)
results.put("an earlier result")
taken = []


def hand_over():
    results.put("this host function's result", timeout=10)


def consumer():
    taken.append(results.get(timeout=10))
    taken.append(results.get(timeout=10))
    stream.synchronize()


gilsan.host_launch(stream, hand_over)
thread = threading.Thread(target=consumer)
thread.start()
thread.join()
assert taken == ["an earlier result", "this host function's result"], taken
print("the consumer took both results")
