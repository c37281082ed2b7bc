# gilsan: expect = deadlock:callback-serialization
# gilsan: drivers = sim, real
# gilsan: timeout = 3
# gilsan: description = a host function waits for a stream whose next host function needs the same callback thread
"""A host function waits for another host function of its context.

The driver runs every host function of a context on one callback thread, across streams. `first` runs
on stream s1 and synchronizes stream s2, whose work ends with `second`. `second` is pending until the
callback thread is free, and the callback thread is busy running `first`, which waits for `second`.
The device work in front of `second` makes sure `first` starts first.
"""
import gilsan

s1 = gilsan.Stream()
s2 = gilsan.Stream()


def second():
    print("not reached: the callback thread is busy")


def first():
    s2.synchronize()


s2.work(100)
gilsan.host_launch(s2, second)
gilsan.host_launch(s1, first)
s1.synchronize()
print("not reached")
