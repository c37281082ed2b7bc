# gilsan: expect = pass
# gilsan: drivers = sim, real
# gilsan: timeout = 20
# gilsan: description = the fixed twin: the worker sets the Event, then synchronizes
"""`event_set_after_synchronize.py` fixed: the worker sets the Event before it waits for the stream, so
the host function's wait ends and the stream completes.
"""
import threading

import gilsan

stream = gilsan.Stream()
ready = threading.Event()
seen = []


def wait_until_ready():
    seen.append(ready.wait(timeout=10))


def worker():
    ready.set()
    stream.synchronize()


gilsan.host_launch(stream, wait_until_ready)
thread = threading.Thread(target=worker)
thread.start()
thread.join()
assert seen == [True], seen
print("the host function saw the Event set")
