# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 30
# gilsan: description = once a host function has run, the implementation lets go of the callable and its arguments
"""Lifetime, after the run: the references the implementation took at launch are released once the driver
has called the host function.

A callable object and an argument object are launched 200 times; the caller keeps only weak references.
After synchronize, within two seconds (an implementation may release on another thread, or at the next
point the interpreter runs pending calls), both must be gone.

Why it matters: a host_launch that never releases leaks every callable and everything it closes over,
once per call: in a training loop that launches a callback per step, that is the whole model's worth of
buffers kept alive.
"""
import gc
import time
import weakref

import gilsan_impl


class Callable:
    runs = 0

    def __call__(self, argument):
        Callable.runs += argument.step


class Argument:
    step = 1


impl = gilsan_impl.current()
stream = impl.new_stream()
alive = []
for _ in range(200):
    callable_, argument = Callable(), Argument()
    alive += [weakref.ref(callable_), weakref.ref(argument)]
    impl.launch(stream, callable_, argument)
del callable_, argument
impl.synchronize(stream)
assert Callable.runs == 200, Callable.runs

# Two seconds: a poll with nothing else happening looks like a hang to the watchdog after ten quiet
# periods (5 s by default, docs/watchdog.md), and a failing implementation must fail here, not there.
deadline = time.monotonic() + 2
while any(ref() is not None for ref in alive) and time.monotonic() < deadline:
    gc.collect()
    time.sleep(0.02)
left = sum(ref() is not None for ref in alive)
assert left == 0, f"{left} of 400 callables and arguments were still alive 2 s after their host functions ran"
print(f"{impl.name}: released every callable and argument after the run")
