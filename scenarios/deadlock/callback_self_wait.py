# gilsan: expect = deadlock:callback-self-wait
# gilsan: drivers = sim, real
# gilsan: timeout = 3
# gilsan: description = a host function synchronizes its own stream, whose work includes the host function
"""A host function waits, through the driver, for work ordered after itself.

The host function calls stream.synchronize() on the stream it runs on. The driver allows the call from a
host function (profile: cuStreamSynchronize inside is allowed) and waits for the stream to drain, but
the stream cannot drain before this very host function returns. The callback thread waits for itself.
The main thread's own synchronize (GIL released) is a bystander waiting on the same stream.
"""
import gilsan

stream = gilsan.Stream()


def waits_for_its_own_stream():
    stream.synchronize()


gilsan.host_launch(stream, waits_for_its_own_stream)
stream.synchronize()
print("not reached")
