# gilsan: expect = deadlock:callback-self-wait
# gilsan: drivers = sim, real
# gilsan: timeout = 5
# gilsan: description = a host function puts into a full bounded Queue whose consumer synchronizes the stream first
"""A host function hands a result to a consumer thread through a bounded queue.Queue that is already
full; the consumer synchronizes the stream before it takes anything. The put waits for a notification
(room in the Queue) that only the consumer gives, and the consumer waits for the host function.
"""
import queue
import threading

import gilsan

stream = gilsan.Stream()
results = queue.Queue(maxsize=1)
results.put("an earlier result")


def hand_over():
    results.put("this host function's result")  # full: waits for the consumer


def consumer():
    stream.synchronize()  # waits for hand_over
    while True:
        results.get()


gilsan.host_launch(stream, hand_over)
thread = threading.Thread(target=consumer, daemon=True)
thread.start()
thread.join()
print("not reached")
