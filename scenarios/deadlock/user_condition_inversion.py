# gilsan: expect = deadlock:user-lock-inversion
# gilsan: drivers = sim, real
# gilsan: timeout = 3
# gilsan: description = the main thread synchronizes inside a threading.Condition; the host function needs the condition
"""A host function waits for a Condition's lock held by a thread that waits in the driver for it.

The main thread enters `with done:` (the Condition's RLock), enqueues a host function that notifies
`done`, and synchronizes the stream without leaving the condition. The host function blocks taking
the condition's lock; the main thread waits for the stream, which waits for the host function. The
RLock is traced (docs/sanitizer.md, "Python locks"), so the watchdog's report names the main thread
as its holder from the board rather than guessing.
"""
import threading

import gilsan

stream = gilsan.Stream()
done = threading.Condition()


def signal_done():
    with done:
        done.notify_all()
        print("not reached: the main thread holds the condition")


with done:
    gilsan.host_launch(stream, signal_done)
    stream.synchronize()
print("not reached")
