# gilsan: expect = pass
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 30
# gilsan: description = a callable whose only reference is the launch stays alive until the driver runs it
"""Lifetime, before the run: the implementation must own the callable and its arguments until the driver
has called it.

The callable and its argument are fresh objects the caller drops right after the launch, with 300 ms of
device work in front of them and a full garbage collection in between. Both must still be alive while the
host function is pending (weak references say so), and the callable must run with its argument.

Why it matters: a binding that passes a borrowed pointer to the driver (as a raw cuLaunchHostFunc of a
ctypes thunk does) runs freed memory when the caller lets go first: a crash, or worse, a wrong call.
"""
import gc
import weakref

import gilsan_impl


class Callable:
    def __init__(self, seen):
        self.seen = seen

    def __call__(self, argument):
        self.seen.append(argument.value)


class Argument:
    def __init__(self, value):
        self.value = value


impl = gilsan_impl.current()
stream = impl.warm_stream()
seen = []
callable_, argument = Callable(seen), Argument(42)
callable_alive, argument_alive = weakref.ref(callable_), weakref.ref(argument)
impl.busy(stream, 300)
impl.launch(stream, callable_, argument)
del callable_, argument
gc.collect()
assert callable_alive() is not None, "the callable was released before the driver ran it"
assert argument_alive() is not None, "the argument was released before the driver ran it"
impl.synchronize(stream)
assert seen == [42], seen
print(f"{impl.name}: kept the callable and its argument until the run")
