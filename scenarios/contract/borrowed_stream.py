# gilsan: expect = pass
# gilsan: drivers = sim, real
# gilsan: timeout = 30
# gilsan: description = host_launch on a borrowed stream handle; closing the borrowed view leaves the stream alive
"""A stream made by someone else (another library) is used through Stream.from_handle.

gilsan never destroys a borrowed stream: after the borrowed view is closed, the owner's stream still
takes work. The legacy default stream works the same way.
"""
import gilsan

owner = gilsan.Stream()
borrowed = gilsan.Stream.from_handle(owner.handle)
assert not borrowed.owning and borrowed.handle == owner.handle

ran = []
borrowed.work(20)
gilsan.host_launch(borrowed, ran.append, "borrowed")
borrowed.synchronize()
borrowed.close()

owner.work(20)
gilsan.host_launch(owner, ran.append, "owner after the borrowed view closed")
owner.synchronize()

legacy = gilsan.Stream.legacy()
gilsan.host_launch(legacy, ran.append, "legacy")
legacy.synchronize()

assert ran == ["borrowed", "owner after the borrowed view closed", "legacy"], ran
owner.close()
print("borrowed stream left alive:", ran)
