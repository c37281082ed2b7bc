# gilsan: expect = pass
# gilsan: drivers = sim, real
# gilsan: timeout = 20
# gilsan: description = device work much longer than the watchdog's quiet period is not a hang
"""Slow device work is progress, not a hang.

The main thread waits in cuStreamSynchronize for 1.5 s of device work -- three times the watchdog's
default quiet period -- and a Python host function behind it. stream.work(ms) declares its duration on
the watchdog's board, so the blocked main thread is not reported; the run must pass.
"""
import gilsan

stream = gilsan.Stream()
ran = []
stream.work(1500)
gilsan.host_launch(stream, ran.append, "host function after the slow work")
stream.synchronize()
assert ran == ["host function after the slow work"], ran
print("done:", ran[0])
