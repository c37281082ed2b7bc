# gilsan: expect = report:host-function-lost-at-exit
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: suppressions = finalization_pending.supp
# gilsan: timeout = 30
# gilsan: description = the interpreter exits with a host function pending; it must be skipped safely, and is reported lost
"""Finalization with a host function pending: the program enqueues a long spin and a Python host function
behind it, and exits without synchronizing. When the driver reaches the host function the interpreter is
finalizing; a conforming trampoline must not run Python then (taking the GIL after finalization ends the
thread on 3.12 and hangs on 3.14): it skips the call, and the process exits cleanly. The callable never
ran: the sanitizer reports host-function-lost-at-exit, which is the outcome. A trampoline that runs it
anyway gives host-function-after-finalization (or a crash, or a hang) instead.

Why it matters: "exit without synchronizing" is the most common way a program ends, and it is where
bindings crash at shutdown, intermittently.
"""
import gilsan_impl

impl = gilsan_impl.current()
stream = impl.new_stream()


def too_late():
    print("this host function ran while the interpreter finalized", flush=True)


impl.busy(stream, 1500)
impl.launch(stream, too_late)
print(f"{impl.name}: leaving with a host function pending", flush=True)
