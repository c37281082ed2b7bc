# gilsan: expect = deadlock:callback-self-wait
# gilsan: drivers = sim, real
# gilsan: timeout = 5
# gilsan: description = a host function waits for an Event that a worker sets only after synchronizing the same stream
"""A host function waits for a threading.Event; the worker that sets it first synchronizes the stream the
host function runs on, and the main thread joins the worker. No lock is held by anyone: the host
function waits, through the worker, for its own stream. The report says the host function waits for a
notification of the Event and which thread may give it (docs/native-locks.md, "Notifications"). The fix
sets the Event before synchronizing: `event_set_before_synchronize.py`.
"""
import threading

import gilsan

stream = gilsan.Stream()
ready = threading.Event()


def wait_until_ready():
    ready.wait()


def worker():
    stream.synchronize()  # waits for wait_until_ready, which waits for the set below
    ready.set()


gilsan.host_launch(stream, wait_until_ready)
thread = threading.Thread(target=worker)
thread.start()
thread.join()
print("not reached")
