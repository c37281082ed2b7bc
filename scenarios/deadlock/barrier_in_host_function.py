# gilsan: expect = deadlock:callback-self-wait
# gilsan: drivers = sim, real
# gilsan: timeout = 5
# gilsan: description = a host function waits at a Barrier that the other party reaches only after synchronizing
"""A host function and the main thread meet at a threading.Barrier of two; the main thread synchronizes
the stream before it goes to the barrier. The host function waits for the notification that the last
party arrived, and the party it waits for waits in the driver for the host function.
"""
import threading

import gilsan

stream = gilsan.Stream()
both = threading.Barrier(2)


def meet():
    both.wait()


gilsan.host_launch(stream, meet)
stream.synchronize()  # waits for meet, which waits for this thread at the barrier
both.wait()
print("not reached")
