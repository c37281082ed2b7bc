# gilsan: expect = unraisable:KeyError
# gilsan: implementations = any
# gilsan: capabilities = stream-launch
# gilsan: timeout = 60
# gilsan: description = 100 host functions that raise give 100 unraisable reports, and the stream stays healthy
"""Every exception is reported once, however many there are.

The scenario wraps sys.unraisablehook (passing each report on) and launches 100 host functions that raise
KeyError, interleaved with 100 that count. All 100 exceptions must reach the hook, and every counting
host function must run.

Why it matters: an implementation that reports only the first error, or that keeps an error flag which
stops later callbacks, turns one bad callback into silent data loss.
"""
import sys

import gilsan_impl

impl = gilsan_impl.current()
stream = impl.new_stream()
reported = []
previous_hook = sys.unraisablehook


def counting_hook(unraisable):
    reported.append(type(unraisable.exc_value).__name__)
    previous_hook(unraisable)


sys.unraisablehook = counting_hook
counted = []


def fails(index):
    raise KeyError(index)


for index in range(100):
    impl.launch(stream, fails, index)
    impl.launch(stream, counted.append, index)
impl.synchronize(stream)
sys.unraisablehook = previous_hook

assert counted == list(range(100)), f"{len(counted)} counting host functions ran"
assert reported == ["KeyError"] * 100, f"{len(reported)} exceptions reached sys.unraisablehook"
