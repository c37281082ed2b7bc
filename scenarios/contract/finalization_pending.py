# gilsan: expect = report:host-function-lost-at-exit
# gilsan: drivers = sim, real
# gilsan: timeout = 30
# gilsan: suppressions = finalization_pending.supp
# gilsan: description = the interpreter exits with a host function pending behind long work; it is skipped, not run, and reported lost
"""Finalization with a callback still pending.

The scenario enqueues a long spin and a Python host function behind it, and ends without synchronizing.
By the time the driver reaches the host function the interpreter is finalizing: the trampoline must not
take the GIL (on 3.12 that would end the driver's thread, on 3.14 hang it). It skips the callable, leaks
its references on purpose and counts the skip. The process exits cleanly; the runner (or, in a plain
python3, the module at exit) reports "skipped 1". The user's callable never ran, which the sanitizer
reports as host-function-lost-at-exit, naming it and where it was enqueued: that is the outcome.
"""
import gilsan

stream = gilsan.Stream()


def too_late():
    print("this host function ran after the interpreter finalized", flush=True)


stream.work(1500)
gilsan.host_launch(stream, too_late)
print("leaving with a host function pending", flush=True)
