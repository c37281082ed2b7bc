# gilsan: expect = report:lock-order-cycle
# gilsan: drivers = sim, real
# gilsan: timeout = 20
# gilsan: description = a host function notifies a threading.Condition; the main thread synchronizes inside that condition
"""The RLock of a threading.Condition is traced, through Condition.wait as well.

The host function signals completion with a Condition (its default lock is a threading.RLock). The
main thread waits for the signal with `wait_for`, which lets go of the lock and takes it back, and
then, still inside `with done:`, synchronizes the stream. The run completes because the host function
had already run, but had it been queued, it would wait for the condition's lock held by a thread
waiting for the stream: the sanitizer reports "RLock of Condition -> completion of the stream -> RLock
of Condition".
"""
import threading

import gilsan

stream = gilsan.Stream()
done = threading.Condition()
finished = []


def signal_done():
    with done:
        finished.append(True)
        done.notify_all()


gilsan.host_launch(stream, signal_done)
with done:
    assert done.wait_for(lambda: finished, timeout=10), "the host function did not run"
    stream.synchronize()  # still inside the condition: the mistake
print("no hang on this run")
